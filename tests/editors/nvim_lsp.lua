-- nvim_lsp.lua -- drive Neovim's built-in LSP client against the KernelPro server.
-- Run as `nvim --headless -n -i NONE -u nvim_lsp.lua`; configured by env (positions 0-based):
--   KP_CMD         JSON array: the server command                     (required)
--   KP_FILE        absolute path of the .cu file to open              (required)
--   KP_OUT         where the JSON result goes                          (required)
--   KP_TIMEOUT     seconds to wait for each step (default 60)
--   KP_FIX_CODE, KP_FIX_LINE, KP_FIX_COL   the diagnostic whose quick fix is applied
--   KP_HOVER_LINE, KP_HOVER_COL            where to hover (a kernel's name)
-- Steps: open -> first diagnostics -> hover, codeLens, inlayHint, codeAction at the diagnostic ->
-- apply the quick fix's WorkspaceEdit with vim.lsp.util.apply_workspace_edit -> :write ->
-- the next publish. Only APIs that Neovim 0.7 has. Every path writes KP_OUT and quits,
-- because an error in a headless -u script would leave nvim hanging.
local uv = vim.loop
local T0 = uv.hrtime()
local function ms() return math.floor((uv.hrtime() - T0) / 1e6) end
local function env(k, d)
  local v = os.getenv(k)
  if v == nil or v == '' then return d end
  return v
end
local encode = (vim.json and vim.json.encode) or vim.fn.json_encode
local decode = (vim.json and vim.json.decode) or vim.fn.json_decode

local out_path = env('KP_OUT')
local file = env('KP_FILE', '')
local timeout = math.floor(tonumber(env('KP_TIMEOUT', '60')) * 1000)
local result = { ok = false, errors = {}, timings_ms = {}, nvim_version = tostring(vim.version().major) .. '.'
  .. vim.version().minor .. '.' .. vim.version().patch }
local function mark(k) result.timings_ms[k] = ms() end
local function err(m) table.insert(result.errors, m) end

local client_id
local function finish()
  mark('total')
  local f = io.open(out_path, 'w')
  if f then f:write(encode(result)) f:close() end
  if client_id then
    pcall(vim.lsp.stop_client, client_id)
    vim.wait(3000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  end
  vim.cmd('qall!')
end

local ok_cmd, cmd = pcall(decode, env('KP_CMD', 'null'))
if not out_path then io.stderr:write('KP_OUT not set\n') vim.cmd('cquit') end
if not ok_cmd or type(cmd) ~= 'table' or #cmd == 0 or file == '' then
  err('KP_CMD (JSON array) and KP_FILE are required')
  return finish()
end

-- keep every publishDiagnostics (and let nvim handle it as usual)
local publishes = {}
local default_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(e, res, ctx, cfg)
  if res and res.uri then table.insert(publishes, { uri = res.uri, version = res.version, diagnostics = res.diagnostics }) end
  return default_publish(e, res, ctx, cfg)
end
local messages = {}
vim.lsp.handlers['window/showMessage'] = function(_, res) table.insert(messages, res) end
result.server_messages = messages

-- real-editor wiring: a *.cu buffer starts (or joins) the client
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  pattern = '*.cu',
  callback = function(args)
    if not client_id then
      client_id = vim.lsp.start_client({
        name = 'kernelpro', cmd = cmd, root_dir = vim.fn.fnamemodify(file, ':p:h'),
        on_init = function() mark('server_initialized') end,
        on_exit = function(code, signal) result.server_exit = { code = code, signal = signal } end,
      })
      if not client_id then err('vim.lsp.start_client returned nil') return end
    end
    vim.lsp.buf_attach_client(args.buf, client_id)
  end,
})

-- wait until a publish for `uri` arrives after index `after`; return it
local function next_publish(uri, after, want_nonempty)
  local found
  vim.wait(timeout, function()
    for i = after + 1, #publishes do
      local p = publishes[i]
      if p.uri == uri and (not want_nonempty or #p.diagnostics > 0) then found = p return true end
    end
    return false
  end, 20)
  return found
end

local function request(bufnr, method, params, key)
  local t = ms()
  local responses, e = vim.lsp.buf_request_sync(bufnr, method, params, timeout)
  result.timings_ms[key] = ms() - t
  if not responses then err(method .. ': no response (' .. tostring(e) .. ')') return nil end
  local r = responses[client_id]
  if not r then err(method .. ': no response from the client') return nil end
  if r.err or r.error then err(method .. ': ' .. vim.inspect(r.err or r.error)) end
  return r.result
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  mark('file_opened')
  if not client_id then err('no client started for ' .. file) return end
  local uri = vim.uri_from_bufnr(bufnr)
  result.uri = uri

  local first = next_publish(uri, 0, true)
  if not first then err('no diagnostics within ' .. timeout .. ' ms') return end
  mark('diagnostics')
  result.diagnostics = first.diagnostics
  result.editor_diagnostics = #vim.diagnostic.get(bufnr)

  local tdi = { uri = uri }
  local hl, hc = tonumber(env('KP_HOVER_LINE', '0')), tonumber(env('KP_HOVER_COL', '0'))
  result.hover = request(bufnr, 'textDocument/hover', { textDocument = tdi, position = { line = hl, character = hc } }, 'hover')
  result.code_lens = request(bufnr, 'textDocument/codeLens', { textDocument = tdi }, 'code_lens')
  -- inlay hints (Neovim 0.7 has no UI for them; the request works as for any client)
  local last = vim.api.nvim_buf_line_count(bufnr)
  result.inlay_hints = request(bufnr, 'textDocument/inlayHint', { textDocument = tdi,
    range = { start = { line = 0, character = 0 }, ['end'] = { line = last, character = 0 } } }, 'inlay_hint')

  local code, fl, fc = env('KP_FIX_CODE', ''), tonumber(env('KP_FIX_LINE', '0')), tonumber(env('KP_FIX_COL', '0'))
  local target
  for _, d in ipairs(first.diagnostics) do
    if d.code == code and d.range.start.line == fl and d.range.start.character == fc then target = d end
  end
  if not target then err('no ' .. code .. ' diagnostic at ' .. fl .. ':' .. fc) return end
  result.target = target
  result.code_actions = request(bufnr, 'textDocument/codeAction', {
    textDocument = tdi, range = target.range, context = { diagnostics = { target } },
  }, 'code_action')

  local fix
  for _, a in ipairs(result.code_actions or {}) do
    if a.kind == 'quickfix' and a.edit and not fix then fix = a end
  end
  if not fix then err('no quick fix with an edit among the code actions') return end
  result.fix_title = fix.title
  local client = vim.lsp.get_client_by_id(client_id)
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding or 'utf-16')
  result.line_after_edit = vim.api.nvim_buf_get_lines(bufnr, fl, fl + 1, false)[1]

  local before = #publishes
  vim.cmd('write')
  mark('saved')
  local again = next_publish(uri, before, false)
  if not again then err('no publish after :write within ' .. timeout .. ' ms') return end
  mark('republished')
  result.diagnostics_after = again.diagnostics
  result.ok = #result.errors == 0
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  nested = true, -- so that :edit inside fires BufReadPost
  callback = function()
    local ok, e = pcall(run)
    if not ok then err('crashed: ' .. tostring(e)) end
    finish()
  end,
})
