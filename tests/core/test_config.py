"""The one configuration reader shared by the plugin and the audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from device_types._config import Config, ConfigError, find_config, load_config


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_toml(tmp_path: Path) -> None:
    path = write(tmp_path, "pyproject.toml", '[tool.device_types]\nbackends = { "pkg._backends.mps" = "mps", "pkg._backends.cuda" = "CUDA" }\n')
    config = load_config(path)
    assert config.backends == {"pkg._backends.mps": "mps", "pkg._backends.cuda": "cuda"}
    assert config.backend_of("pkg._backends.mps") == "mps"
    assert config.backend_of("pkg._backends.mps.kernels.attn") == "mps"
    assert config.backend_of("pkg._backends.mpsx") is None
    assert config.backend_of("pkg.models") is None


def test_backends_listed_by_device_name(tmp_path: Path) -> None:
    path = write(tmp_path, "pyproject.toml", '[tool.device_types]\nbackends = ["pkg._backends.mps", "pkg._backends.npu"]\n')
    assert load_config(path).backends == {"pkg._backends.mps": "mps", "pkg._backends.npu": "npu"}


def test_the_distributions_name_is_the_section_too(tmp_path: Path) -> None:
    path = write(tmp_path, "pyproject.toml", '[tool.device-types]\nbackends = { "pkg.accel" = "npu" }\n')
    assert load_config(path).backends == {"pkg.accel": "npu"}
    path = write(tmp_path, "pyproject.toml",
                 '[tool.device-types]\nbackends = { "a.b" = "npu" }\n[tool.device_types]\nbackends = { "a.c" = "mps" }\n')
    with pytest.raises(ConfigError, match=r"both \[tool.device_types\] and \[tool.device-types\]: keep one"):
        load_config(path)


def test_ini_forms(tmp_path: Path) -> None:
    path = write(tmp_path, "mypy.ini", "[mypy]\n[device_types]\nbackends =\n    pkg._backends.mps = mps\n    pkg._backends.npu: npu\n")
    assert load_config(path).backends == {"pkg._backends.mps": "mps", "pkg._backends.npu": "npu"}
    path = write(tmp_path, "setup.cfg", "[device_types]\nbackends = a.mps = mps, a.cuda = cuda\n")
    assert load_config(path).backends == {"a.mps": "mps", "a.cuda": "cuda"}


def test_ini_without_section_falls_back_to_pyproject(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", '[tool.device_types]\nbackends = { "p.mps" = "mps" }\n')
    path = write(tmp_path, "mypy.ini", "[mypy]\nstrict = True\n")
    assert load_config(path).backends == {"p.mps": "mps"}


def test_longest_prefix_wins(tmp_path: Path) -> None:
    config = Config(backends={"p.b": "cuda", "p.b.mps": "cuda"})
    assert config.backend_of("p.b.mps.x") == "cuda"


def test_find_config(tmp_path: Path) -> None:
    assert find_config(str(tmp_path)) is None
    write(tmp_path, "setup.cfg", "[metadata]\nname = x\n")
    assert find_config(str(tmp_path)) is None
    path = write(tmp_path, "pyproject.toml", '[tool.device_types]\nbackends = {}\n')
    assert find_config(str(tmp_path)) == path


def test_no_file_or_section_is_empty(tmp_path: Path) -> None:
    assert load_config(None).backends == {}
    assert load_config(write(tmp_path, "pyproject.toml", "[tool.mypy]\n")).backends == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('backends = { "p.mps" = "gpu" }', "backends.'p.mps': unknown backend device 'gpu'; use one of cuda, mps, npu, xpu"),
        ('backends = { "p.mps" = "cpu" }', "unknown backend device 'cpu' (the host is never a backend)"),
        ('backends = { "p.mps" = 3 }', "backends.'p.mps': the device must be a string"),
        ('backends = ["p.accel"]', "'p.accel' is not named after a device (cuda, mps, npu, xpu); give its device in a table"),
        ('backends = ["p..mps"]', "'p..mps' is not a dotted module name"),
        ('backends = "p.mps"', "backends must be a table of module prefix -> device"),
        ('cpu_backends = ["p.cpu"]', "'cpu_backends' belongs in [tool.device_types.check]"),
        ('backends = { "p..x" = "mps" }', "a key must be a dotted module name"),
        ('backends = { "p.b" = "mps", "p.b.c" = "cuda" }', "backends.'p.b.c' (cuda) lies inside backends.'p.b' (mps)"),
        ('backend = { "p.b" = "mps" }', "unknown key 'backend'; known keys: backends, check, default_backend, docs_url, known_issues, platforms, strict"),
        ('known_issues = ""', "known_issues must be a path"),
        ('platforms = ["910B"]', "platforms must be a table of platform name -> device"),
        ('platforms = { "910B" = "ascend" }', "platforms.'910B': unknown backend device 'ascend'; use one of cuda, mps, npu, xpu"),
        ('platforms = { " " = "npu" }', "platforms: a key must be a platform name as headings write it"),
        ('default_backend = "tpu"', "default_backend: unknown backend device 'tpu'"),
        ('default_backend = 1', "default_backend: the device must be a string"),
        ('strict = "yes"', "strict must be true or false, not 'yes'"),
        ("backends = {", "not valid TOML"),
        ('docs_url = "docs"', "docs_url must be the base URL of the docs, e.g. 'https://github.com/org/repo/blob/main/docs'"),
        ('docs_url = "https://example.org/docs/errors.md#x"', "docs_url must be the base URL of the docs"),
    ],
)
def test_malformed(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "pyproject.toml", f"[tool.device_types]\n{text}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value)
    assert str(info.value).startswith(path)


def test_audit_keys_toml(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "pyproject.toml",
        '[tool.device_types]\nplatforms = { "310B" = "npu", "M4" = "MPS" }\ndefault_backend = "npu"\nstrict = true\n',
    )
    config = load_config(path)
    assert config.platforms == {"310B": "npu", "M4": "mps"}
    assert config.default_backend == "npu"
    assert config.strict is True
    assert load_config(write(tmp_path, "pyproject.toml", "[tool.device_types]\n")) == Config(
        root=str(tmp_path), source=str(tmp_path / "pyproject.toml")
    )


def test_audit_keys_ini(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "setup.cfg",
        "[device_types]\nplatforms =\n    310B = npu\n    910B: npu\ndefault_backend = cuda\nstrict = yes\n",
    )
    config = load_config(path)
    assert (config.platforms, config.default_backend, config.strict) == ({"310B": "npu", "910B": "npu"}, "cuda", True)
    assert load_config(write(tmp_path, "mypy.ini", "[device_types]\nstrict = off\n")).strict is False
    with pytest.raises(ConfigError, match=r"\[device_types\] strict must be true or false, not 'maybe'"):
        load_config(write(tmp_path, "mypy.ini", "[device_types]\nstrict = maybe\n"))
    with pytest.raises(ConfigError, match=r"\[device_types\] platforms: '910B' is not 'platform name = device'"):
        load_config(write(tmp_path, "mypy.ini", "[device_types]\nplatforms = 910B\n"))


def test_malformed_ini_line(tmp_path: Path) -> None:
    path = write(tmp_path, "mypy.ini", "[device_types]\nbackends = just-a-name\n")
    with pytest.raises(ConfigError, match="is not 'module.prefix = device'"):
        load_config(path)
