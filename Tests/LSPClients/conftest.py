"""pytest-lsp drives `rulekit lsp` as an editor would: a real client over standard input and output."""

import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
RULEKIT = os.environ.get("RULEKIT_BIN", str(REPO / ".build" / "debug" / "rulekit"))


@pytest.fixture
def workspace(tmp_path: pathlib.Path) -> pathlib.Path:
    """A workspace folder: Rules/ with one rules file, and the repository's Schemas/."""
    (tmp_path / "Rules").mkdir()
    (tmp_path / "Schemas").symlink_to(REPO / "Schemas")
    shutil.copy(REPO / "Tests" / "LSPClients" / "shop.yaml", tmp_path / "Rules" / "shop.yaml")
    return tmp_path
