"""The language server: editor events in, the session's findings out as diagnostics.

All engine work runs on one worker thread, one job at a time (the session is not shared
between threads), so the event loop keeps answering while a cold first run takes seconds.
Edits are debounced; opens and saves run at once. After each run only the files whose
diagnostics changed are published, callers in other files included.
"""

from __future__ import annotations

import asyncio
import ast
import json
import logging
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from .._files import split_lines

from .. import _codes
from .._check._baseline import FORMAT, VERSION, BaselineError, read_baseline
from .._check._pipeline import Selection, SelectionError
from .._check._project import FunctionInfo, collect_idle, gc_paused
from .._check._session import CheckSession, SessionRun
from .._config import INI_FILES, Config, ConfigError, find_config, load_config
from . import _convert as convert

__all__ = ["DeviceTypesServer", "build_server"]

log = logging.getLogger("device_types.lsp")

DEBOUNCE_S = 0.15
ADD_TO_BASELINE = "device-types.addToBaseline"
OPEN_LOCATION = "device-types.openLocation"
_IGNORE = re.compile(r"#\s*device-types\s*:\s*ignore\[(?P<codes>[^\]]*)\]")


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, but a request whose params do not parse (``"params": 5``, a negative
    line) is answered with an InvalidParams error (pygls drops it: the client waits forever)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data and isinstance(data["id"], (int, str)):
                cause = exc.__cause__
                why = str(cause).splitlines()[0] if cause is not None and str(cause) else exc.message
                error = exc if not isinstance(exc, JsonRpcInvalidParams) else JsonRpcInvalidParams(
                    f"invalid params for {data['method']}: {why}")
                self._send_response(data["id"], None, error.to_response_error())
            raise


class DeviceTypesServer(LanguageServer):
    def __init__(self) -> None:
        from .. import __version__

        super().__init__("device-types", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=_Protocol)
        self.root = os.getcwd()
        self.config = Config()
        self.config_path: str | None = None
        self.config_error: tuple[str, int, str] | None = None
        self.session: CheckSession | None = None
        self.texts: dict[str, str] = {}  # path -> open buffer
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="device-types-check")
        self.run: SessionRun | None = None
        self.check_diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.audit_diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.published: dict[str, list[Any]] = {}
        self._generation = 0
        self._lock: asyncio.Lock | None = None
        #: Runs so far (a test and the benchmark wait on it).
        self.runs = 0
        #: Files came or went (a save, a watched-file event, a new file opened): walk the root again.
        self._rescan = False
        self._started = 0.0

    def report_server_error(self, error: Exception, source: Any) -> None:
        """One line for a message pygls could not take (not JSON, params of the wrong shape)."""
        cause = error.__cause__ or error.__context__
        why = f"{type(cause).__name__}: {cause}" if cause is not None and not str(error).strip(": ") == "" else str(error)
        self.log(f"ignored a malformed message ({str(error) or type(error).__name__}"
                 f"{'; ' + why.splitlines()[0] if why and why != str(error) else ''})", types.MessageType.Error)

    # --- helpers ---------------------------------------------------------------------------

    @property
    def encoding(self) -> str:
        try:
            return str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)
        except RuntimeError:
            return types.PositionEncodingKind.Utf16

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        log.info("%s", message)
        try:
            self.window_log_message(types.LogMessageParams(kind, f"device-types: {message}"))
        except Exception:  # noqa: BLE001 - no client to tell (closing): the log above has it
            pass

    def path_of(self, uri: str) -> str | None:
        path = to_fs_path(uri)
        return os.path.abspath(path) if path else None

    def uri_of(self, path: str) -> str:
        return from_fs_path(os.path.join(self.root, path) if not os.path.isabs(path) else path) or path

    def lines_of(self, path: str) -> list[str]:
        path = os.path.join(self.root, path) if not os.path.isabs(path) else path
        text = self.texts.get(os.path.abspath(path))
        if text is None:
            from .._check._project import MAX_FILE_BYTES, decode_source
            from .._files import read_regular

            try:
                text = decode_source(read_regular(path, MAX_FILE_BYTES))
            except OSError:
                return []
        return split_lines(text)

    # --- configuration ----------------------------------------------------------------------

    def load_config(self) -> None:
        """``[tool.device_types]`` of the root; a broken one is one diagnostic, the last good one stays."""
        found = find_config(self.root)
        self.config_path = os.path.abspath(found) if found else None
        try:
            config = load_config(found)
            try:  # the codes the CLI accepts, no others (one selection step: ``_check._pipeline``)
                Selection.of(config)
            except SelectionError as exc:
                raise ConfigError(f"{found}: {exc} ([tool.device_types.check])") from None
        except ConfigError as exc:
            shown = self.config_path or os.path.join(self.root, "pyproject.toml")
            self.config_error = (shown, _section_line(shown), str(exc))
            self.log(f"configuration error: {exc}", types.MessageType.Error)
            if self.session is None:
                self.session = CheckSession(self.root, self.config)
            return
        self.config_error = None
        if self.session is None or config != self.config:
            self.config = config
            self.session = CheckSession(self.root, config)

    # --- running ------------------------------------------------------------------------

    def schedule(self, delay: float, audit: bool = False) -> None:
        self._generation += 1
        generation = self._generation
        asyncio.ensure_future(self._later(delay, generation, audit))

    async def _later(self, delay: float, generation: int, audit: bool) -> None:
        if delay:
            await asyncio.sleep(delay)
            if generation != self._generation:
                return  # a newer edit came: it runs instead
        await self.analyse(audit)

    async def analyse(self, audit: bool = False) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            texts = dict(self.texts)
            loop = asyncio.get_running_loop()
            try:
                run, diagnostics, cpu = await loop.run_in_executor(self.worker, self._job, texts)
            except Exception as exc:  # noqa: BLE001 - the engine failed on this input: say so, keep serving
                self.log(f"the check failed: {type(exc).__name__}: {exc}", types.MessageType.Error)
                run = None
            if run is not None:
                self.run, self.check_diagnostics = run, diagnostics
            if audit:  # the check's diagnostics first: the audit of a large tree takes a while
                self.publish()
                self.audit_diagnostics = await loop.run_in_executor(self.worker, self._audit_diagnostics)
            self.runs += 1
            self.publish()
            if run is not None:  # the diagnostics are out: free the run's cycles before the next one
                await loop.run_in_executor(self.worker, collect_idle)
            if run is not None:
                self.log(f"run {self.runs}: {len(run.findings)} findings in {len(run.files)} backend files, "
                         f"{run.walks} functions walked, {cpu * 1000:.0f} ms CPU", types.MessageType.Log)

    def _job(self, texts: dict[str, str]) -> tuple[SessionRun, dict[str, list[types.Diagnostic]], float]:
        started = time.thread_time()
        session = self.session  # a configuration reloaded meanwhile gets the next run
        assert session is not None
        if self._rescan:
            self._rescan = False
            session.rescan()
        with gc_paused(freeze=False):  # collected when idle (``analyse``): never frozen, never leaked
            run = self._run_check(session, texts)
            diagnostics = self._check_diagnostics(session, run)
        return run, diagnostics, time.thread_time() - started

    def _run_check(self, session: CheckSession, texts: dict[str, str]) -> SessionRun:
        for path in set(session.overlay) - set(texts):
            session.set_text(path, None)
        for path, text in texts.items():
            session.set_text(path, text)
        return session.run()

    def _check_diagnostics(self, session: CheckSession, run: SessionRun) -> dict[str, list[types.Diagnostic]]:
        assert session.project is not None
        project = session.project
        index = convert.ChainIndex(project)
        lines: dict[str, list[str]] = {}

        def lines_of(path: str) -> list[str]:
            known = lines.get(path)
            if known is None:
                module = index.by_path.get(path)
                known = lines[path] = project.source_lines(module) if module is not None else self.lines_of(path)
            return known

        out: dict[str, list[types.Diagnostic]] = {path: [] for path in run.files}
        for finding in run.findings:
            out.setdefault(finding.path, []).append(convert.finding_diagnostic(
                finding, lines_of(finding.path), index.hops(finding), self.encoding, self.uri_of,
                docs_url=self.config.docs_url))
        for problem in run.problems:
            out.setdefault(problem.path, []).append(convert.plain_diagnostic(
                lines_of(problem.path), problem.line, _codes.UNANALYSED.name, problem.message, self.encoding,
                "problem", docs_url=self.config.docs_url))
        if run.baseline_error and self.config_path:
            shown = os.path.relpath(self.config_path, self.root)
            out.setdefault(shown, []).append(convert.plain_diagnostic(
                self.lines_of(self.config_path), _section_line(self.config_path), _codes.CONFIG.name,
                run.baseline_error, self.encoding, "config", docs_url=self.config.docs_url))
        return out

    def _audit_diagnostics(self) -> dict[str, list[types.Diagnostic]]:
        from .._audit._checks import run_audit
        from .._audit._findings import AuditError

        out: dict[str, list[types.Diagnostic]] = {}
        try:
            result = run_audit(self.root, self.config)
        except (AuditError, ConfigError) as exc:
            self.log(f"audit: {exc}", types.MessageType.Warning)
            return out
        unanalysed = {p.path for p in (self.run.problems if self.run else [])}
        for finding in result.findings:
            if finding.code == _codes.UNREADABLE_SOURCE.name and finding.path in unanalysed:
                continue  # the check already says this file cannot be read: one line, not two
            out.setdefault(finding.path, []).append(convert.plain_diagnostic(
                self.lines_of(finding.path), finding.line, finding.code, finding.message, self.encoding, "audit",
                docs_url=self.config.docs_url))
        return out

    def publish(self) -> None:
        merged: dict[str, list[types.Diagnostic]] = {}
        for source in (self.check_diagnostics, self.audit_diagnostics):
            for path, diagnostics in source.items():
                merged.setdefault(self.uri_of(path), []).extend(diagnostics)
        if self.config_error is not None:
            path, line, message = self.config_error
            merged.setdefault(self.uri_of(path), []).append(convert.plain_diagnostic(
                self.lines_of(path), line, _codes.CONFIG.name, message, self.encoding, "config",
                docs_url=self.config.docs_url))
        for uri in set(self.published) - set(merged):
            merged[uri] = []
        for uri, diagnostics in sorted(merged.items()):
            diagnostics.sort(key=lambda d: (d.range.start.line, d.range.start.character, str(d.code)))
            shape = [(d.range.start.line, d.range.start.character, d.code, d.message) for d in diagnostics]
            if self.published.get(uri, []) == shape:
                continue
            self.published[uri] = shape
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    # --- hover --------------------------------------------------------------------------

    def hover_text(self, path: str, line: int, character: int) -> str | None:
        session = self.session
        if session is None or session.project is None or session.analysis is None:
            return None
        module = session.module_of(path)
        if module is None:
            return None
        lines = session.project.source_lines(module)
        if not 0 <= line < len(lines):
            return None
        column = convert.server_column(lines[line], character, self.encoding)
        enclosing = session.function_at(path, line + 1)
        node: ast.AST | None = session.project.function_node(module, enclosing.qualname) if enclosing else None
        if node is None:
            node = session.project.tree(module)
            enclosing = FunctionInfo(module.name, "<module>", module.path, None, (), None, None, 0, "")
        call = _call_at(node, line + 1, column)
        if call is None or enclosing is None:
            return None
        dotted = session.analysis.resolve(enclosing, {}, call.func)
        callee = session.analysis.function(dotted) if dotted else None
        if callee is None:
            return None
        record = session.records.get(callee.key)
        is_backend = session.analysis.is_backend(callee.module)
        return convert.summary_text(callee, record.summary if record else None, is_backend,
                                    session.project.display(callee.path))

    # --- code actions ---------------------------------------------------------------------

    def code_actions(self, uri: str, diagnostics: list[types.Diagnostic]) -> list[types.CodeAction]:
        actions: list[types.CodeAction] = []
        path = self.path_of(uri)
        if path is None:
            return actions
        lines = self.lines_of(path)
        for diagnostic in diagnostics:
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            if diagnostic.source != convert.SOURCE or data.get("kind") != "check":
                continue
            code = str(diagnostic.code)
            row = diagnostic.range.start.line
            if row < len(lines):
                actions.append(types.CodeAction(
                    title=f"Silence {code} on this line (# device-types: ignore[{code}])",
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    edit=types.WorkspaceEdit(changes={uri: [_ignore_edit(lines[row], row, code, self.encoding)]})))
            if self.session is not None and self.session.baseline_path:
                entry = {k: data.get(k) for k in ("path", "function", "code", "anchor", "line")}
                actions.append(types.CodeAction(
                    title=f"Add this finding to the baseline ({self.config.check.baseline})",
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    command=types.Command("Add to the device-types baseline", ADD_TO_BASELINE, arguments=[entry])))
            root = data.get("root")
            if root:
                actions.append(types.CodeAction(
                    title=f"Open the chain's root ({_shown(self.path_of(root[0]) or root[0], self.root)}:{root[1]})",
                    kind=types.CodeActionKind.Empty, diagnostics=[diagnostic],
                    command=types.Command("Open the chain's root", OPEN_LOCATION, arguments=[root[0], root[1]])))
        return actions

    def add_to_baseline(self, entry: dict[str, Any]) -> str:
        target = self.session.baseline_path if self.session is not None else None
        if not target:
            return "no baseline is configured ([tool.device_types.check] baseline)"
        try:
            entries = read_baseline(target) if os.path.exists(target) else []
        except BaselineError as exc:
            return str(exc)
        entries.append({k: entry[k] for k in ("path", "function", "code", "anchor", "line") if k in entry})
        entries.sort(key=lambda e: (str(e["path"]), int(e.get("line") or 0), str(e["code"])))  # type: ignore[call-overload]
        text = json.dumps({"format": FORMAT, "version": VERSION, "entries": entries}, indent=1)
        from .._files import WriteError, write_atomic

        try:
            write_atomic(target, text + "\n")
        except WriteError as exc:
            return str(exc)
        return f"added {entry.get('function')} [{entry.get('code')}] to {os.path.relpath(target, self.root)}"


def _section_line(path: str) -> int:
    """The line of the device_types section, where a configuration error is shown (else 1)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if "device_types" in text and text.lstrip().startswith("["):
                    return number
    except OSError:
        pass
    return 1


def _shown(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def _call_at(node: ast.AST, line: int, column: int) -> ast.Call | None:
    """The innermost call whose callee expression covers (line, column)."""
    best: ast.Call | None = None
    best_size = None
    for child in ast.walk(node):
        if not isinstance(child, ast.Call):
            continue
        func = child.func
        start = (func.lineno, func.col_offset)
        end = (func.end_lineno or func.lineno, func.end_col_offset or func.col_offset)
        if start <= (line, column) <= end:
            size = (end[0] - start[0], end[1] - start[1])
            if best_size is None or size < best_size:
                best, best_size = child, size
    return best


def _ignore_edit(text: str, row: int, code: str, encoding: str) -> types.TextEdit:
    """``# device-types: ignore[code]`` at the end of the line (or the code added to one there)."""
    match = _IGNORE.search(text)
    if match is not None:
        listed = [c.strip() for c in match.group("codes").split(",") if c.strip()]
        start = convert.client_column(text, len(text[:match.start("codes")].encode("utf-8")), encoding)
        end = convert.client_column(text, len(text[:match.end("codes")].encode("utf-8")), encoding)
        return types.TextEdit(types.Range(types.Position(row, start), types.Position(row, end)),
                              ", ".join([*listed, code]))
    stripped = text.rstrip()
    at = convert.client_column(text, len(stripped.encode("utf-8")), encoding)
    end = convert.client_column(text, len(text.encode("utf-8")), encoding)
    return types.TextEdit(types.Range(types.Position(row, at), types.Position(row, end)),
                          f"  # device-types: ignore[{code}]")


def _is_config(path: str) -> bool:
    return os.path.basename(path) in INI_FILES


def build_server() -> DeviceTypesServer:
    server = DeviceTypesServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: DeviceTypesServer, params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        uri = folders[0].uri if folders else params.root_uri
        path = ls.path_of(uri) if uri else (params.root_path or None)
        ls.root = os.path.abspath(path or os.getcwd())

    @server.feature(types.INITIALIZED)
    async def initialized(ls: DeviceTypesServer, params: types.InitializedParams) -> None:
        ls.load_config()
        ls.log(f"checking {ls.root} ({'configuration ' + ls.config_path if ls.config_path else 'no configuration: inferred backends'})")
        await ls.analyse(audit=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(ls.worker, _save, ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DeviceTypesServer, params: types.DidOpenTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is None or not path.endswith(".py"):
            return
        ls.texts[path] = params.text_document.text
        if ls.session is not None and not ls.session.knows(path):
            ls._rescan = True
        ls.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DeviceTypesServer, params: types.DidChangeTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is None or not path.endswith(".py"):
            return
        document = ls.workspace.get_text_document(params.text_document.uri)
        ls.texts[path] = document.source  # pygls applied the (incremental) changes
        ls.schedule(DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DeviceTypesServer, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return
        if _is_config(path):
            ls.load_config()
        ls._rescan = True
        ls.schedule(0, audit=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DeviceTypesServer, params: types.DidCloseTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri)
        if path is not None and ls.texts.pop(path, None) is not None:
            ls.schedule(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: DeviceTypesServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [ls.path_of(change.uri) or "" for change in params.changes]
        if any(_is_config(p) for p in paths):
            ls.load_config()
        ls._rescan = True
        ls.schedule(0, audit=True)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: DeviceTypesServer, params: types.HoverParams) -> types.Hover | None:
        path = ls.path_of(params.text_document.uri)
        if path is None:
            return None
        loop = asyncio.get_running_loop()
        text = await loop.run_in_executor(ls.worker, ls.hover_text, path, params.position.line,
                                          params.position.character)
        if text is None:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: DeviceTypesServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params.text_document.uri, list(params.context.diagnostics))

    @server.command(ADD_TO_BASELINE)
    async def add_to_baseline(ls: DeviceTypesServer, entry: dict[str, Any]) -> str:
        message = ls.add_to_baseline(entry)
        ls.log(message)
        await ls.analyse()
        return message

    @server.command(OPEN_LOCATION)
    async def open_location(ls: DeviceTypesServer, uri: str, line: int) -> bool:
        at = types.Position(max(int(line) - 1, 0), 0)
        result = await ls.window_show_document_async(types.ShowDocumentParams(
            uri=uri, take_focus=True, selection=types.Range(at, at)))
        return bool(getattr(result, "success", False))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: DeviceTypesServer, params: None) -> None:
        ls.worker.submit(_save, ls).result(timeout=30)

    return server


def _save(ls: DeviceTypesServer) -> None:
    """The session's records as the CLI's cache: the next server start (and ``check``) is warm."""
    if ls.session is not None:
        try:
            ls.session.save_cache()
        except Exception as exc:  # noqa: BLE001 - a cache that cannot be written costs time, never findings
            log.warning("cannot write the cache: %s", exc)
