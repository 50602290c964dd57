-- Neovim as a second, independent client of `rulekit lsp` (headless): open a rules file with a mistake,
-- wait for its diagnostic, ask for completion. Written for Neovim 0.7 (Debian 12) and later.
-- Run: RULEKIT_BIN=... WORKSPACE=... nvim --headless --clean -u NONE -l is not in 0.7, so:
--      nvim --headless --clean -u NONE -c "luafile Tests/LSPClients/nvim_smoke.lua"
local bin = os.getenv("RULEKIT_BIN")
local root = os.getenv("WORKSPACE")
local function fail(message)
  io.stderr:write("nvim smoke: FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

vim.cmd("edit " .. root .. "/Rules/new.yaml")
local buf = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(buf, 0, -1, false, {
  "rules:",
  "  - id: r",
  "    when:",
  "      all:",
  "        - {key: xdm.eventType, eqals: commerce.purchases}",
  "        - key: xdm.commerce.order.pr",
  "    then:",
  "      - {id: c, add: {data: {a: 1}}}",
})
local client = vim.lsp.start_client({ name = "rulekit", cmd = { bin, "lsp" }, root_dir = root })
if not client then fail("the server did not start") end
vim.lsp.buf_attach_client(buf, client)

local ok = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
if not ok then fail("no diagnostic within 20 s") end
local d = vim.diagnostic.get(buf)[1]
if d.lnum ~= 4 or d.col ~= 31 or not d.message:find("unknown matcher 'eqals'") then
  fail(string.format("unexpected diagnostic %d:%d %s", d.lnum, d.col, d.message))
end

local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 5, character = 36 } }
local results = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, 20000)
local found = nil
for _, r in pairs(results or {}) do
  for _, item in ipairs((r.result or {}).items or {}) do
    if item.label == "xdm.commerce.order.priceTotal" then found = item end
  end
end
if not found then fail("completion did not offer xdm.commerce.order.priceTotal") end
if found.detail ~= "number" then fail("priceTotal's detail is " .. tostring(found.detail)) end

io.stdout:write(string.format("nvim smoke: ok: diagnostic at %d:%d (%s); completion %s — %s\n",
  d.lnum + 1, d.col + 1, d.message, found.label, found.detail))
vim.lsp.stop_client(client)
vim.cmd("qall!")
