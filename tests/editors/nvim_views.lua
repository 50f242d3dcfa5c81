-- nvim_views.lua -- Neovim's view of KernelPro's findings through edits, an Undo, an outside change
-- and a header (issue 29, items 8-10). Run as `nvim --headless -n -i NONE -u nvim_views.lua`; env:
--   KP_CMD      JSON array: the server command
--   KP_FILE     the .cu file to open;  KP_HEADER  a .cuh with a kernel
--   KP_DISK     a file whose text is written over KP_FILE "outside the editor"
--   KP_FIX_LINE, KP_FIX_COL   the diagnostic whose quick fix is applied (0-based)
--   KP_OUT      where the JSON result goes;  KP_TIMEOUT  seconds per step (default 60)
-- Steps: open -> the file changes on disk -> :edit! -> quick fix (not saved) -> :undo -> open the header.
-- Only APIs that Neovim 0.7 has; every path writes KP_OUT and quits.
local encode = (vim.json and vim.json.encode) or vim.fn.json_encode
local decode = (vim.json and vim.json.decode) or vim.fn.json_decode
local function env(k, d)
  local v = os.getenv(k)
  if v == nil or v == '' then return d end
  return v
end
local out_path, file, header = env('KP_OUT'), env('KP_FILE', ''), env('KP_HEADER', '')
local timeout = math.floor(tonumber(env('KP_TIMEOUT', '60')) * 1000)
local result = { ok = false, errors = {} }
local function err(m) table.insert(result.errors, m) end
local client_id
local function finish()
  local f = io.open(out_path, 'w')
  if f then f:write(encode(result)) f:close() end
  if client_id then
    pcall(vim.lsp.stop_client, client_id)
    vim.wait(3000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  end
  vim.cmd('qall!')
end
local ok_cmd, cmd = pcall(decode, env('KP_CMD', 'null'))
if not ok_cmd or type(cmd) ~= 'table' or file == '' then
  err('KP_CMD and KP_FILE are required')
  return finish()
end

local publishes, logs = {}, {}
local default_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(e, res, ctx, cfg)
  if res and res.uri then table.insert(publishes, { uri = res.uri, version = res.version, diagnostics = res.diagnostics }) end
  return default_publish(e, res, ctx, cfg)
end
vim.lsp.handlers['window/logMessage'] = function(_, res) table.insert(logs, res.message) end

vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  pattern = { '*.cu', '*.cuh' },
  callback = function(args)
    client_id = client_id or vim.lsp.start_client({ name = 'kernelpro', cmd = cmd, root_dir = vim.fn.fnamemodify(file, ':p:h') })
    vim.lsp.buf_attach_client(args.buf, client_id)
  end,
})

local function profiles(name)
  local n = 0
  for _, m in ipairs(logs) do if m:find('profiled ' .. name, 1, true) then n = n + 1 end end
  return n
end

local function next_publish(uri, after, nonempty)
  local found
  vim.wait(timeout, function()
    for i = after + 1, #publishes do
      local p = publishes[i]
      if p.uri == uri and (not nonempty or #p.diagnostics > 0) then found = p return true end
    end
    return false
  end, 20)
  return found
end

local function shown(bufnr)
  return vim.tbl_map(function(d) return { code = d.code, lnum = d.lnum, col = d.col } end, vim.diagnostic.get(bufnr))
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  local name = vim.fn.fnamemodify(file, ':t')
  local first = next_publish(uri, 0, true)
  if not first then err('no diagnostics') return end
  result.first = first.diagnostics

  -- the file changes outside the editor; the buffer is not reloaded yet
  local src = io.open(env('KP_DISK'), 'r')
  local disk = src:read('*a') src:close()
  local n = profiles(name)
  local before = #publishes
  local dst = io.open(file, 'w') dst:write(disk) dst:close()
  if not vim.wait(timeout, function() return profiles(name) > n end, 20) then err('the disk text was not profiled') return end
  vim.wait(500)
  result.publishes_before_reload = 0
  for i = before + 1, #publishes do
    if publishes[i].uri == uri then result.publishes_before_reload = result.publishes_before_reload + 1 end
  end
  result.shown_before_reload = shown(bufnr)

  -- the editor reloads it
  before = #publishes
  vim.cmd('edit!')
  local reloaded = next_publish(uri, before, true)
  if not reloaded then err('no publish after :edit!') return end
  result.after_reload = reloaded.diagnostics
  result.shown_after_reload = shown(bufnr)

  -- the quick fix, applied and not saved
  local fl, fc = tonumber(env('KP_FIX_LINE', '0')), tonumber(env('KP_FIX_COL', '0'))
  local target
  for _, d in ipairs(result.after_reload) do
    if d.range.start.line == fl and d.range.start.character == fc then target = d end
  end
  if not target then err('no diagnostic at ' .. fl .. ':' .. fc) return end
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', { textDocument = { uri = uri },
    range = target.range, context = { diagnostics = { target } } }, timeout)
  local fix
  for _, a in ipairs((responses and responses[client_id] or {}).result or {}) do
    if a.kind == 'quickfix' and a.edit and not fix then fix = a end
  end
  if not fix then err('no quick fix') return end
  before = #publishes
  vim.o.undolevels = vim.o.undolevels  -- a new undo step: the fix alone is undone, not the reload too
  vim.lsp.util.apply_workspace_edit(fix.edit, 'utf-16')
  local fixed = next_publish(uri, before, false)
  if not fixed then err('no publish after the quick fix') return end
  result.after_fix = fixed.diagnostics
  result.line_after_fix = vim.api.nvim_buf_get_lines(bufnr, fl, fl + 1, false)[1]
  result.profiles_before_undo = profiles(name)

  -- Undo: back at the reloaded text
  before = #publishes
  vim.cmd('undo')
  local undone = next_publish(uri, before, false)
  if not undone then err('no publish after :undo') return end
  result.after_undo = undone.diagnostics
  vim.wait(1000)
  result.profiles_after_undo = profiles(name)
  result.modified_after_undo = vim.bo[bufnr].modified

  -- a header with a kernel, opened on its own
  if header ~= '' then
    vim.cmd('edit ' .. vim.fn.fnameescape(header))
    local hbuf = vim.api.nvim_get_current_buf()
    local h = next_publish(vim.uri_from_bufnr(hbuf), 0, true)
    if not h then err('no diagnostics in the header') return end
    result.header = h.diagnostics
  end
  result.ok = #result.errors == 0
end

vim.api.nvim_create_autocmd('VimEnter', { once = true, nested = true, callback = function()
  local ok, e = pcall(run)
  if not ok then err('crashed: ' .. tostring(e)) end
  finish()
end })
