"""What must fail in every checker: host round-trips and device mixing."""

from __future__ import annotations

import torch

from device_types import CPU, CUDA, MPS, Tensor


def return_cpu(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.cpu()  # type: ignore[return-value]  # pyright: ignore[reportReturnType]


def return_to_cpu(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.to("cpu")  # type: ignore[return-value]  # pyright: ignore[reportReturnType]


def return_other_device(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.to("cuda")  # type: ignore[return-value]  # pyright: ignore[reportReturnType]


def numpy_on_device(x: Tensor[MPS]) -> None:
    x.numpy()  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]


def tolist_on_device(x: Tensor[CUDA]) -> None:
    x.tolist()  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]


def mixed_bmm(x: Tensor[MPS], y: Tensor[CPU]) -> None:
    torch.bmm(x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]


def mixed_operator(x: Tensor[MPS], y: Tensor[CPU]) -> None:
    x + y  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue]


def mixed_method(x: Tensor[MPS], y: Tensor[CUDA]) -> None:
    x.add(y)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def mixed_where(c: Tensor[MPS], x: Tensor[MPS], y: Tensor[CPU]) -> None:
    torch.where(c, x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType, reportCallIssue]


def cpu_factory_into_device_op(x: Tensor[MPS]) -> None:
    x * torch.ones(3)  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue]


def not_a_device(x: Tensor[int]) -> None:  # type: ignore[type-var]  # pyright: ignore[reportInvalidTypeArguments]
    pass



def unknown_device_name(x: Tensor["gpu"]) -> None:  # type: ignore[name-defined]  # pyright: ignore[reportUndefinedVariable, reportUnknownParameterType]
    pass


def merged_originals_still_reject(x: Tensor[MPS]) -> None:
    # rand's originals with and without generator= share their device overloads, which
    # take generator: Generator | None; a wrong generator still matches no overload.
    torch.rand(3, generator="seed", device=x.device)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue, reportArgumentType]
