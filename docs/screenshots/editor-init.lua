vim.o.swapfile = false
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.pumheight = 12
vim.cmd("syntax on")
vim.cmd("hi Pmenu ctermbg=237 ctermfg=252 | hi PmenuSel ctermbg=25 ctermfg=231")
vim.diagnostic.config({ virtual_text = true, signs = true, underline = true, update_in_insert = true })
vim.o.completeopt = "menuone,noinsert"
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local client = vim.lsp.start_client({ name = "rulekit", cmd = { os.getenv("RULEKIT_BIN"), "lsp" }, root_dir = "/tmp/shot" })
  vim.lsp.buf_attach_client(0, client)
  vim.bo.omnifunc = "v:lua.vim.lsp.omnifunc"
  vim.defer_fn(function()
    vim.api.nvim_win_set_cursor(0, { 12, 34 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("a<C-x><C-o>", true, false, true), "n", false)
  end, 6000)
end })
