"""A small LSP client for the tests and the benchmarks: the server as a subprocess, JSON-RPC
over its stdin/stdout with ``Content-Length`` framing, messages read on a thread.

By default the server is ``device-types lsp``; ``command`` runs another one (pyright's and
basedpyright's in ``benchmarks/editor_bench.py``), and ``settings`` answers its
``workspace/configuration`` requests (section name -> value)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["LspClient", "uri"]


def uri(path: Path | str) -> str:
    return Path(path).resolve().as_uri()


class LspClient:
    def __init__(self, cwd: Path, *args: str, command: list[str] | None = None,
                 settings: dict[str, Any] | None = None) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.settings = settings or {}
        argv = command if command is not None else [sys.executable, "-m", "device_types", "lsp", *args]
        self.proc = subprocess.Popen(argv, cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self._next_id = 0
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        #: how many times each file's diagnostics were published
        self.published: dict[str, int] = {}
        self.logs: list[str] = []
        self.show_document: list[dict[str, Any]] = []
        self._responses: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # --- wire ----------------------------------------------------------------------------

    def send_raw(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            message = json.loads(stream.read(length))
            self._dispatch(message)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def _dispatch(self, message: dict[str, Any]) -> None:
        with self._cond:
            method = message.get("method")
            if method == "textDocument/publishDiagnostics":
                self.diagnostics[message["params"]["uri"]] = message["params"]["diagnostics"]
                self.published[message["params"]["uri"]] = self.published.get(message["params"]["uri"], 0) + 1
            elif method == "window/logMessage":
                self.logs.append(message["params"]["message"])
            elif method == "window/showDocument" and "id" in message:
                self.show_document.append(message["params"])
                self._send({"id": message["id"], "result": {"success": True}})
            elif method == "workspace/configuration" and "id" in message:
                items = message["params"].get("items", [])
                self._send({"id": message["id"], "result": [self.settings.get(i.get("section", "")) for i in items]})
            elif "id" in message and method is not None:  # another request of the server's: answer it
                self._send({"id": message["id"], "result": None})
            elif "id" in message:
                self._responses[message["id"]] = message
            self.inbox.put(message)
            self._cond.notify_all()

    # --- API -----------------------------------------------------------------------------

    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        self._next_id += 1
        ident = self._next_id
        self._send({"id": ident, "method": method, "params": params})
        with self._cond:
            if not self._cond.wait_for(lambda: ident in self._responses, timeout):
                raise AssertionError(f"no answer to {method} in {timeout} s; stderr:\n{self.stderr.decode()[-3000:]}")
            response = self._responses.pop(ident)
        if "error" in response:
            raise AssertionError(f"{method} failed: {response['error']}")
        return response.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait(self, predicate: Any, timeout: float = 60, what: str = "a message") -> None:
        with self._cond:
            if not self._cond.wait_for(predicate, timeout):
                raise AssertionError(f"waited {timeout} s for {what}; logs: {self.logs[-5:]}; "
                                     f"stderr:\n{self.stderr.decode()[-3000:]}")

    def initialize(self, root: Path, capabilities: dict[str, Any] | None = None) -> Any:
        result = self.request("initialize", {"processId": os.getpid(), "rootUri": uri(root),
                                             "capabilities": capabilities or {}})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": "python", "version": 1,
            "text": path.read_text(encoding="utf-8") if text is None else text}})

    def change(self, path: Path, text: str, version: int = 2) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                               "contentChanges": [{"text": text}]})

    def runs(self) -> int:
        """Check runs the server finished (it logs one line per run)."""
        with self._cond:
            return sum(1 for line in self.logs if line.startswith("device-types: run "))

    def wait_runs(self, count: int, timeout: float = 60) -> None:
        self.wait(lambda: sum(1 for line in self.logs if line.startswith("device-types: run ")) >= count,
                  timeout, f"check run {count}")

    def diagnostics_of(self, path: Path) -> list[dict[str, Any]]:
        with self._cond:
            return list(self.diagnostics.get(uri(path), []))

    def close(self, timeout: float = 30) -> int:
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def alive(self) -> bool:
        return self.proc.poll() is None

