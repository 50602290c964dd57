"""End to end: `rulekit lsp` under pytest-lsp (a pygls client), as issue 37 asks."""

import asyncio
import inspect
import pathlib
import subprocess

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from conftest import RULEKIT

MISTAKE = """rules:
  - id: r
    when:
      all:
        - {key: xdm.eventType, eqals: commerce.purchases}
    then:
      - {id: c, add: {data: {a: 1}}}
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[RULEKIT, "lsp"]))
async def client(lsp_client: LanguageClient):
    # The server asks to watch files (the client's capabilities offer it); pytest-lsp's client has no
    # handler of its own for the request, so the test answers it as an editor would.
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        lsp_client.registrations = params.registrations
        return None

    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, workspace: pathlib.Path):
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="w")],
        )
    )


async def wait_diagnostics(client: LanguageClient, uri: str, predicate, timeout: float = 20.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        found = client.diagnostics.get(uri)
        if found is not None and predicate(found):
            return found
        try:
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), end - loop.time())
        except asyncio.TimeoutError:
            break
    raise AssertionError(f"diagnostics of {uri} never matched: {client.diagnostics.get(uri)}")


def open_document(client: LanguageClient, path: pathlib.Path, text: str, version: int = 1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="yaml", version=version, text=text)
        )
    )


@pytest.mark.asyncio
async def test_a_mistake_is_diagnosed_at_its_range_and_cleared_when_fixed(client: LanguageClient, workspace):
    await start(client, workspace)
    path = workspace / "Rules" / "new.yaml"
    open_document(client, path, MISTAKE)
    found = await wait_diagnostics(client, path.as_uri(), lambda ds: any(d.code == "rules.unknown-matcher" for d in ds))
    d = next(d for d in found if d.code == "rules.unknown-matcher")
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.range.start == types.Position(line=4, character=31)
    assert d.range.end == types.Position(line=4, character=56)
    assert d.related_information[0].message == "did you mean 'eq'?"

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    edit = actions[0].edit.changes[path.as_uri()][0]
    assert edit.new_text == "eq"

    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text="eq")],
        )
    )
    await wait_diagnostics(client, path.as_uri(), lambda ds: not any(d.code == "rules.unknown-matcher" for d in ds))


@pytest.mark.asyncio
async def test_completion_offers_xdm_paths_with_their_types(client: LanguageClient, workspace):
    await start(client, workspace)
    path = workspace / "Rules" / "new.yaml"
    text = "rules:\n  - id: r\n    when:\n      all:\n        - {key: xdm.commerce.order.pr\n"
    open_document(client, path, text)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=4, character=37)
        )
    )
    items = {i.label: i for i in result.items}
    assert items["xdm.commerce.order.priceTotal"].detail == "number"
    assert items["xdm.commerce.order.priceTotal"].kind == types.CompletionItemKind.Field


@pytest.mark.asyncio
async def test_hover_and_definition_of_a_data_element(client: LanguageClient, workspace):
    await start(client, workspace)
    path = workspace / "Rules" / "shop.yaml"
    open_document(client, path, path.read_text())
    await wait_diagnostics(client, path.as_uri(), lambda ds: True)
    doc = types.TextDocumentIdentifier(uri=path.as_uri())
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=types.Position(line=12, character=22)))
    assert "xdm.commerce.order.priceTotal" in hover.contents.value
    matcher = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=types.Position(line=12, character=33)))
    assert "greater or equal" in matcher.contents.value and "Trap" in matcher.contents.value
    where = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=types.Position(line=12, character=22))
    )
    assert where.uri == path.as_uri()
    assert where.range.start.line in (2, 3)


@pytest.mark.asyncio
async def test_a_malformed_message_is_answered_and_the_server_goes_on(client: LanguageClient, workspace):
    await start(client, workspace)
    written = client.protocol.writer.write(b"Content-Length: 9\r\n\r\n{not json")
    if inspect.isawaitable(written):
        await written
    path = workspace / "Rules" / "shop.yaml"
    open_document(client, path, path.read_text())
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    assert symbols is not None


def test_a_client_that_exits_without_shutdown_ends_the_server(workspace):
    body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}'
    proc = subprocess.Popen([RULEKIT, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()
    proc.stdin.close()
    assert proc.wait(timeout=20) == 1
    out = proc.stdout.read()
    assert b'"positionEncoding"' in out
