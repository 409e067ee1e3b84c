"""What the walk reads off the syntax alone: names, device spellings, guards, block ends.

Pure functions of ``ast`` nodes (and, for a name that may be a constant, a lookup of what it
is bound to). The op-semantics table names the device parameter; nothing here names an op.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable

from ... import _semantics as sem
from ..._vocabulary import HostVocabulary
from .._project import FunctionInfo

#: What a name stands for where it is a constant (a local bound once, a module's constant):
#: the expression it was bound to, or None.
ConstantLookup = Callable[[str], "ast.expr | None"]



def no_constants(name: str) -> ast.expr | None:
    return None


def shown(node: ast.expr, limit: int = 48) -> str:
    """The call as written, quoted and shortened: ``"_to_numpy(a)"``."""
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
        text = "call"
    text = " ".join(text.split())
    return f'"{text if len(text) <= limit else text[: limit - 3] + "..."}"'


def base_name(node: ast.AST | None) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def metadata_of(node: ast.expr) -> ast.expr | None:
    """The tensor expression ``node`` is metadata of (``t.data_ptr()``, ``out.data_ptr``,
    ``view.shape``, ``a.dtype``: ``sem.METADATA``, ``sem.PLACE_ATTRIBUTES``), or None."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
    if isinstance(node, ast.Attribute) and (node.attr in sem.METADATA or node.attr in sem.PLACE_ATTRIBUTES):
        return node.value
    return None


def dotted_text(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def name_text(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def terminates(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return, ast.Continue, ast.Break))


def exits(body: list[ast.stmt]) -> bool:
    """Whether ``body`` ends in a return or raise (a ``continue`` or ``break`` goes on)."""
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return))


def host_guard(test: ast.expr, constant: ConstantLookup = no_constants) -> tuple[str, int] | None:
    """``x.device.type == "cpu"`` (x on the host in the body: arm 0), ``!= "cpu"`` (arm 1),
    ``!= "<device>"`` (arm 0); ``a and b`` guards the body when either part does. The device
    may be read as ``x.device.type``, ``x.device`` or ``str(x.device)``, and the CPU spelled
    in any way ``is_cpu_literal`` reads (``CPU``, ``torch.device("cpu")``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for part in test.values:
            found = host_guard(part, constant)
            if found is not None and found[1] == 0:
                return found
        return None
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    flag = test.operand if negated else test  # type: ignore[attr-defined]
    if isinstance(flag, ast.Attribute) and sem.DEVICE_FLAGS.get(flag.attr) == "cpu":  # ``x.is_cpu``
        name = base_name(flag.value)
        return (name, 1 if negated else 0) if name is not None else None
    if isinstance(flag, ast.Call) and len(flag.args) >= 1 and isinstance(flag.args[0], ast.Name):
        called = name_text(flag.func)
        if called == "isinstance" and len(flag.args) == 2 and host_class(flag.args[1], constant):
            return (flag.args[0].id, 1 if negated else 0)  # ``isinstance(x, np.ndarray)``: host data
        if _ACCELERATOR_TEST.match(called) and len(flag.args) == 1:
            return (flag.args[0].id, 0 if negated else 1)  # ``not cuda.is_cuda_array(x)``: on the host
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    subject, other = test.left, test.comparators[0]
    if isinstance(subject, ast.Call) and isinstance(subject.func, ast.Name) and subject.func.id == "str" \
            and len(subject.args) == 1:
        subject = subject.args[0]
    if isinstance(subject, ast.Attribute) and subject.attr in sem.DEVICE_TYPE_ATTRIBUTES:
        subject = subject.value  # ``x.device.type``, JAX's ``x.device().platform``
    if isinstance(subject, ast.Call) and not subject.args and not subject.keywords:
        subject = subject.func  # ``x.device()``, ``x.device_name()``: a device as a method's result
    if not (isinstance(subject, ast.Attribute) and subject.attr in sem.DEVICE_ACCESSORS):
        return None
    name = base_name(subject.value)
    if name is None:
        return None
    is_cpu = is_cpu_literal(other, constant)
    is_literal = isinstance(other, ast.Constant) and isinstance(other.value, str)
    if isinstance(test.ops[0], (ast.Eq, ast.Is)):
        return (name, 0) if is_cpu else None
    if isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
        return (name, 1) if is_cpu else (name, 0) if is_literal else None
    return None


#: A test that a value is an accelerator's (``cuda.is_cuda_array(x)``, ``is_gpu_tensor(x)``).
_ACCELERATOR_TEST = re.compile(r"^is_(cuda|gpu|mps|npu|xpu|device)(_array|_tensor)?$")


def host_class(node: ast.expr, constant: ConstantLookup = no_constants) -> bool:
    """A class of host data: numpy's ``np.ndarray``, ``np.generic``."""
    return isinstance(node, ast.Attribute) and node.attr in ("ndarray", "generic") \
        and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy")


def is_ctypes_array_type(func: ast.expr, resolve: Any) -> bool:
    """``ctypes.c_char * n`` (called, it makes a host buffer)."""
    if not (isinstance(func, ast.BinOp) and isinstance(func.op, ast.Mult)):
        return False
    side = func.left if isinstance(func.left, (ast.Name, ast.Attribute)) else func.right
    dotted = resolve(side) if isinstance(side, (ast.Name, ast.Attribute)) else None
    return dotted is not None and dotted.startswith("ctypes.")


def one_element(shape: ast.expr) -> bool:
    """A literal shape of at most one element: ``1``, ``(1,)``, ``[1]``, ``()``."""
    if isinstance(shape, ast.Constant):
        return shape.value in (0, 1) and not isinstance(shape.value, bool)
    if isinstance(shape, (ast.Tuple, ast.List)):
        return all(isinstance(e, ast.Constant) and e.value == 1 for e in shape.elts)
    return False


def device_guard(test: ast.expr) -> str | None:
    """``x.device.type == "npu"`` (alone, or with ``isinstance(x, ...)`` tests of the same
    ``x``): the name whose value is not a device tensor once the test failed and returned."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    names = set()
    device_test = False
    for part in parts:
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id == "isinstance" and part.args:
            names.add(base_name(part.args[0]))
            continue
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)
                and isinstance(part.comparators[0], ast.Constant) and isinstance(part.comparators[0].value, str)):
            return None
        subject, literal = part.left, part.comparators[0].value
        if isinstance(subject, ast.Attribute) and subject.attr == "type":
            subject = subject.value
        if not (isinstance(subject, ast.Attribute) and subject.attr == sem.DEVICE_PARAMETER) or literal == "cpu" \
                or literal.startswith("cpu:"):
            return None
        names.add(base_name(subject.value))
        device_test = True
    return names.pop() if device_test and len(names) == 1 and None not in names else None


def counts(iterable: ast.expr, vocab: HostVocabulary) -> bool:
    """A loop over counters (``range(n)``, ``enumerate``, ``np.ndindex``): its values are
    computed indices, not items of a container."""
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in vocab.counting_iterators


def names_cpu(node: ast.Call, constant: ConstantLookup = no_constants) -> bool:
    """The call's ``device=`` is the CPU, in any spelling."""
    return any(is_cpu_literal(value, constant) for value in device_keywords(node, constant))


def device_keywords(node: ast.Call, constant: ConstantLookup = no_constants) -> list[ast.expr]:
    """What the call passes as ``device=``: written out, or in a ``**`` dict written out."""
    found = [k.value for k in node.keywords if k.arg in sem.DEVICE_KEYWORDS]
    for unpacked in (k.value for k in node.keywords if k.arg is None):  # ``**kw``, ``kw = {"device": "cpu"}``
        for key in sorted(sem.DEVICE_KEYWORDS):
            found += keyword_values(unpacked, key, constant)
    return found


def is_cpu_literal(node: ast.AST, constant: ConstantLookup = no_constants, depth: int = 0) -> bool:
    """Whether ``node`` names the CPU as a device: ``"cpu"``, ``"cpu:0"``, ``torch.device("cpu")``,
    the framework's own ``Device("cpu")``, or a name bound to one of these (a local bound once,
    a module's constant ``CPU = "cpu"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == "cpu" or node.value.startswith("cpu:")
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        kind = node.args[:1] or [k.value for k in node.keywords if k.arg == sem.DEVICE_TYPE_PARAMETER]
        if name.lower() == sem.DEVICE_PARAMETER and kind:
            return is_cpu_literal(kind[0], constant, depth + 1)
        if name.lower() in ("cpuplace", "cpu_place", "cpudevice", "cpu_device"):  # Paddle's ``CPUPlace()``
            return True
        # ``jax.devices("cpu")[0]``, ``devices(backend="cpu")``, ``Device.canonicalize("cpu")``:
        # a device lookup given the CPU's name
        owner = dotted_text(func).lower()
        if sem.DEVICE_PARAMETER in owner and depth < 4 and any(
                isinstance(a, ast.Constant) and is_cpu_literal(a) for a in (*node.args, *(k.value for k in node.keywords))):
            return True
    if isinstance(node, ast.Subscript) and depth < 4:  # one of the devices a lookup gives
        return isinstance(node.value, ast.Call) and is_cpu_literal(node.value, constant, depth + 1)
    if isinstance(node, ast.Name) and depth < 4:
        bound = constant(node.id)
        return bound is not None and is_cpu_literal(bound, constant, depth + 1)
    if isinstance(node, ast.Attribute) and node.attr in ("cpu", "CPU") and isinstance(node.value, ast.Name):
        return True  # a module's CPU device: ``mx.cpu``, ``Device.CPU``
    if isinstance(node, ast.Attribute) and depth < 4 and node.attr != sem.DEVICE_PARAMETER:
        dotted = dotted_text(node)  # ``dx.cpu``, ``devices.HOST``: a module's constant
        bound = constant(dotted) if dotted and "." in dotted else None
        return bound is not None and is_cpu_literal(bound, constant, depth + 1)
    return False


def keyword_values(node: ast.expr, key: str, constant: ConstantLookup = no_constants) -> list[ast.expr]:
    """What ``**node`` passes as ``key``, where ``node`` is (a name bound once to) a dict display
    or a ``dict(...)`` call with that key written out."""
    if isinstance(node, ast.Name):
        bound = constant(node.id)
        if bound is None:
            return []
        node = bound
    if isinstance(node, ast.Dict):
        return [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == key]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return [k.value for k in node.keywords if k.arg == key]
    return []


def literal_device(node: ast.Call, constant: ConstantLookup = no_constants) -> str | None:
    """The device a ``.to(...)`` call names, when it is the CPU in any spelling; None otherwise."""
    candidates = device_keywords(node, constant) + list(node.args[:1])
    for candidate in candidates:
        if is_cpu_literal(candidate, constant):
            return "cpu"
    return None


def converts_dtype_only(node: ast.Call) -> bool:
    """``.to(torch.float16)``, ``.to(x.dtype)``, ``.to(dtype)``, ``.to(dtype=...)``: a dtype
    and no device, so the data stays where it is."""
    keywords = {k.arg for k in node.keywords}
    if sem.DEVICE_PARAMETER in keywords or None in keywords:
        return False
    if not node.args:
        return "dtype" in keywords
    first = node.args[0]
    if isinstance(first, ast.Name):
        return first.id == "dtype"
    if isinstance(first, ast.Attribute):
        # ``x.dtype``, or a module's constant (``torch.float16``); not ``x.device``
        return first.attr == "dtype" or (isinstance(first.value, ast.Name) and first.value.id == "torch"
                                         and first.attr != sem.DEVICE_PARAMETER)
    return False


def targets_device(node: ast.Call, constant: ConstantLookup = no_constants) -> bool:
    """The call names a device as its target (``device=...``, ``x.device``): it creates there."""
    for keyword in node.keywords:  # written out: a ``**`` dict (``**dd`` of factory kwargs) is not read here
        if keyword.arg in sem.DEVICE_KEYWORDS:
            return not is_cpu_literal(keyword.value, constant)
    for arg in node.args:
        if isinstance(arg, ast.Call) and not arg.args:  # ``x.device()``: a device as a method's result
            arg = arg.func
        if isinstance(arg, ast.Attribute) and arg.attr == sem.DEVICE_PARAMETER:
            return True
        if isinstance(arg, ast.Name) and arg.id == sem.DEVICE_PARAMETER:
            return True
        if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == sem.DEVICE_PARAMETER:
            return True  # what names a device (``device.platform, device.id``)
    return False


def argument_node(callee: FunctionInfo, node: ast.Call, index: int) -> ast.expr | None:
    offset = 1 if callee.class_name is not None and isinstance(node.func, ast.Attribute) else 0
    position = index - offset
    if 0 <= position < len(node.args):
        return node.args[position]
    if index < len(callee.params):
        for keyword in node.keywords:
            if keyword.arg == callee.params[index]:
                return keyword.value
    return None


def constructs(name: str) -> bool:
    """A call of a class (``__init__``, or a capitalised name): it wraps its arguments (a
    tensor around a storage, a storage around a buffer) and computes nothing with them."""
    return name == "__init__" or name[:1].isupper()


def is_class_ref(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id[:1].isupper()
