// vscode_drive.mjs -- drive a running code-server (VS Code in the browser) with headless Chromium
// through playwright-core. Opens a .cu file, then runs KP_SCENARIO:
//   fix         wait for the KernelPro squiggle and Problems entry, read the code lens, hover the
//               kernel's name, open the quick-fix menu (Ctrl+.) at a diagnostic, apply it, save
//   stale-sass  `git checkout KP_BRANCH -- KP_FILE` outside the editor and wait for the Problems
//               panel to follow (no save); then "KernelPro: Show SASS", check its headers against the
//               source, move the cursor in each editor and read what lights up in the other
//   restricted  a folder that is not trusted: read the Restricted Mode indicator, wait for the static
//               diagnostics, click the Optimize lens and read the notification, list the KernelPro
//               commands of the palette; then trust the folder (the trust editor's Trust button),
//               read the question about the workspace's interpreter, answer KP_INTERPRETER_ANSWER,
//               and wait for the diagnostics of the restarted server
// Writes result.json + screenshots into KP_OUT; the pytest test asserts on them. Env:
//   KP_URL            code-server URL, e.g. http://127.0.0.1:8080              (required)
//   KP_FOLDER         workspace folder (absolute)                              (required)
//   KP_FILE           file name inside KP_FOLDER                               (required)
//   KP_OUT            output dir                                               (required)
//   KP_PLAYWRIGHT     dir whose node_modules holds playwright-core             (required)
//   KP_RULE           rule id expected in the Problems panel
//   KP_KERNEL         the kernel's name (hovered on its __global__ line)
//   KP_HOVER_LINE/KP_HOVER_COL, KP_FIX_LINE/KP_FIX_COL   1-based positions (kernel name, diagnostic)
//   KP_FIX_TEXT       text on the fixed line (to read it back after the edit)
//   KP_TIMEOUT        seconds per UI state (default 60); KP_CHROMIUM (default /usr/bin/chromium)
//   stale-sass: KP_BRANCH (the candidate branch), KP_AFTER (rule rows expected after the checkout),
//               KP_SASS_LINE (1-based source line to put the cursor on), KP_SASS_CLICK (the text of an
//               instruction near the SASS's end whose source line has an earlier run)
//   restricted: KP_INTERPRETER_ANSWER (the button to press on the interpreter question, "Keep mine")
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const env = (k, d = '') => process.env[k] || d;
const require = createRequire(path.join(env('KP_PLAYWRIGHT'), 'package.json'));
const { chromium } = require('playwright-core');

const OUT = env('KP_OUT');
const TIMEOUT = Number(env('KP_TIMEOUT', '60')) * 1000;
const RULE = env('KP_RULE');
const t0 = Date.now();
const result = { ok: false, timings_ms: {}, texts: {}, errors: [], screenshots: {} };
const mark = (k) => { result.timings_ms[k] = Date.now() - t0; };
fs.mkdirSync(OUT, { recursive: true });

async function shot(page, name) {
  const p = path.join(OUT, name + '.png');
  await page.screenshot({ path: p });
  result.screenshots[name] = p;
}

// wait until an element matching `sel` has text containing `want`; return all non-empty texts
async function texts(page, sel, want, timeout = TIMEOUT) {
  await page.waitForFunction(([s, w]) => [...document.querySelectorAll(s)]
    .some((e) => e.innerText && e.innerText.includes(w)), [sel, want], { timeout, polling: 100 });
  return page.$$eval(sel, (els) => els.map((e) => e.innerText.trim()).filter(Boolean));
}

async function quickInput(page, key, text) {
  await page.keyboard.press(key);
  await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 15000 });
  await page.keyboard.type(text, { delay: 10 });
  await page.waitForTimeout(300);
}

async function goTo(page, line, col) {  // Go to Line/Column (Ctrl+G), like a person would
  await quickInput(page, 'Control+G', `${line}:${col}`);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

async function step(name, fn) {
  try { await fn(); mark(name); } catch (e) { result.errors.push(`${name}: ${String(e.message || e).split('\n')[0]}`); }
}

async function scenarioFix(page) {
  const squiggle = '.monaco-editor .squiggly-error, .monaco-editor .squiggly-warning, .monaco-editor .squiggly-info';
  await step('squiggle', async () => {
    await page.waitForSelector(squiggle, { timeout: TIMEOUT });
    result.texts.squiggles = await page.$$eval(squiggle, (els) => els.map((e) => e.className));
  });
  await step('code_lens', async () => {
    result.texts.code_lens = await texts(page, '.monaco-editor .codelens-decoration', 'regs');
  });
  await step('problems', async () => {
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel', { state: 'visible', timeout: 10000 });
    result.texts.problems = await texts(page, '.markers-panel .monaco-list-row', RULE);
  });
  result.texts.status_bar = await page.$$eval('.part.statusbar .statusbar-item', (els) =>
    els.map((e) => e.getAttribute('aria-label') || e.innerText).filter(Boolean)).catch(() => []);
  await page.mouse.move(5, 5);
  await shot(page, 'diagnostics');

  // hover: the mouse over the kernel's name (its token span), else Go to + "Show or Focus Hover"
  await step('hover', async () => {
    const hl = Number(env('KP_HOVER_LINE')), hc = Number(env('KP_HOVER_COL'));
    await goTo(page, hl, hc);
    const hover = '.monaco-hover:not(.hidden)';
    const box = await page.evaluateHandle((kn) => {
      const line = [...document.querySelectorAll('.editor-instance .view-line')].find((l) => l.innerText.includes('__global__'));
      return line ? [...line.querySelectorAll('span span')].find((s) => s.innerText.trim() === kn) || null : null;
    }, env('KP_KERNEL')).then((h) => h.asElement()?.boundingBox());
    result.texts.hover_by = box ? 'mouse' : 'keyboard';
    if (box) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.move(box.x + box.width / 2 + 1, box.y + box.height / 2);
    }
    try { result.texts.hover = await texts(page, hover, 'registers', box ? 8000 : 1); } catch {
      result.texts.hover_by = 'keyboard';
      await quickInput(page, 'F1', 'Show or Focus Hover');
      await page.keyboard.press('Enter');
      result.texts.hover = await texts(page, hover, 'registers', 15000);
    }
  });
  await page.waitForTimeout(400); // the hover fades in
  await shot(page, 'hover');
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 5);

  // quick fix: cursor into the diagnostic, Ctrl+.
  await step('quick_fix', async () => {
    await goTo(page, Number(env('KP_FIX_LINE')), Number(env('KP_FIX_COL')));
    await page.keyboard.press('Control+.');
    result.texts.code_actions = await texts(page, '.action-widget', 'float literal', 15000);
  });
  await shot(page, 'quick_fix');

  // apply it (Enter on the focused fix): the Problems list is one shorter before any save (the edit
  // took its diagnostic); then save, and the saved text's profile keeps it so
  await step('fix_applied', async () => {
    if (!result.texts.code_actions) throw new Error('no quick-fix menu');
    const before = result.texts.problems.filter((t) => t.includes(RULE)).length;
    const rowsAre = (n) => page.waitForFunction(([r, k]) => {
      const rows = [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((e) => e.innerText);
      return rows.filter((t) => t.includes(r)).length === k;
    }, [RULE, n], { timeout: TIMEOUT, polling: 100 });
    const disk = path.join(env('KP_FOLDER'), env('KP_FILE'));
    const saved = fs.readFileSync(disk, 'utf8');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    result.texts.fixed_line = await page.$$eval('.editor-instance .view-line', (ls, n) =>
      ls.map((l) => l.innerText.replace(/\u00a0/g, ' ')).find((t) => t.includes(n)), env('KP_FIX_TEXT'));
    await rowsAre(before - 1);
    result.texts.problems_unsaved = await problemRows(page);
    result.texts.unchanged_on_disk = fs.readFileSync(disk, 'utf8') === saved;
    await page.keyboard.press('Control+S');
    const t0 = Date.now();
    while (fs.readFileSync(disk, 'utf8') === saved) {
      if (Date.now() - t0 > TIMEOUT) throw new Error('the file was not saved');
      await page.waitForTimeout(100);
    }
    await page.waitForTimeout(2000); // the saved text's profile
    await rowsAre(before - 1);
    result.texts.problems_after = await problemRows(page);
  });

}

// the text of each line of the editor in group `group` that an extension's whole-line decoration lights up
async function highlighted(page, group) {
  return page.evaluate((g) => {
    const ed = document.querySelectorAll('.editor-group-container')[g]?.querySelector('.monaco-editor');
    if (!ed) return null;
    const byTop = {};
    ed.querySelectorAll('.view-lines .view-line').forEach((l) => { byTop[l.style.top] = l.innerText.replace(/\u00a0/g, ' '); });
    const out = [];
    ed.querySelectorAll('.view-overlays > div').forEach((d) => {
      // an extension's decoration type (ced-N-TextEditorDecorationTypeK), not word or bracket highlights
      const lit = [...d.children].some((c) => /TextEditorDecorationType/.test(c.className)
        && getComputedStyle(c).backgroundColor !== 'rgba(0, 0, 0, 0)');
      if (lit && byTop[d.style.top] !== undefined) out.push(byTop[d.style.top]);
    });
    return out;
  }, group);
}

async function visibleText(page, group) {
  return page.evaluate((g) => {
    const ed = document.querySelectorAll('.editor-group-container')[g]?.querySelector('.monaco-editor');
    if (!ed) return [];
    return [...ed.querySelectorAll('.view-lines .view-line')].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .map((l) => l.innerText.replace(/\u00a0/g, ' '));
  }, group);
}

async function notifications(page) {
  return page.$$eval('.notifications-toasts .notification-toast, .notifications-center .notification-list-item',
    (els) => els.map((e) => e.innerText.trim()).filter(Boolean)).catch(() => []);
}

async function scenarioStaleSass(page) {
  const folder = env('KP_FOLDER'), file = env('KP_FILE');
  const rows = () => page.$$eval('.markers-panel .monaco-list-row', (els) => els.map((e) => e.innerText.trim()));
  await step('problems_before', async () => {
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel', { state: 'visible', timeout: 10000 });
    result.texts.problems_before = await texts(page, '.markers-panel .monaco-list-row', RULE);
  });
  await page.waitForTimeout(1500); // the server's watcher settles
  // a candidate branch checked out outside the editor, as a terminal or the Candidates view would
  const t = Date.now();
  execFileSync('git', ['-C', folder, 'checkout', env('KP_BRANCH'), '--', file]);
  await step('problems_after_checkout', async () => {
    const want = Number(env('KP_AFTER'));
    await page.waitForFunction(([r, n]) => [...document.querySelectorAll('.markers-panel .monaco-list-row')]
      .filter((e) => e.innerText.includes(r)).length === n, [RULE, want], { timeout: TIMEOUT, polling: 100 });
    result.timings_ms.checkout_to_problems = Date.now() - t;
    result.texts.problems_after = await rows();
  });
  await page.waitForTimeout(1500);
  result.texts.notifications = await notifications(page);
  await shot(page, 'after_checkout');

  // Show SASS from the palette, with the cursor in the source
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click({ position: { x: 200, y: 10 } });
  await step('show_sass', async () => {
    await quickInput(page, 'F1', 'KernelPro: Show SASS');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.tabs-container .tab[aria-label*="SASS"]', { timeout: TIMEOUT });
    await page.waitForFunction((f) => document.querySelectorAll('.editor-group-container').length >= 2
      && [...document.querySelectorAll('.editor-group-container')[1].querySelectorAll('.view-line')]
        .some((l) => l.innerText.replace(/\u00a0/g, ' ').startsWith(`// ${f}:`)), file, { timeout: TIMEOUT, polling: 100 });
  });
  result.texts.source_file = fs.readFileSync(path.join(folder, file), 'utf8');
  // the cursor on a source line: its instructions light up in the SASS
  await step('source_to_sass', async () => {
    await page.locator('.editor-group-container').nth(0).locator('.view-lines').click({ position: { x: 300, y: 5 } });
    await goTo(page, Number(env('KP_SASS_LINE')), 5);
    await page.waitForFunction((g) => {
      const ed = document.querySelectorAll('.editor-group-container')[g]?.querySelector('.monaco-editor');
      return ed && [...ed.querySelectorAll('.view-overlays .cdr')].some((c) => /TextEditorDecorationType/.test(c.className)
        && getComputedStyle(c).backgroundColor !== 'rgba(0, 0, 0, 0)');
    }, 1, { timeout: 15000, polling: 100 });
    await page.waitForTimeout(500);
    result.texts.sass_visible = await visibleText(page, 1);
    result.texts.sass_lit = await highlighted(page, 1);
    result.texts.source_lit = await highlighted(page, 0);
    result.texts.sass_source_lines = await visibleText(page, 0);
  });
  await shot(page, 'sass');
  // the cursor on an instruction of another line: that source line lights up
  await step('sass_to_source', async () => {
    // the first visible block header of another source line: "// file.cu:M  code"
    const target = `${file}:${env('KP_SASS_LINE')} `;
    const want = (await visibleText(page, 1)).find((l) => l.trim().startsWith(`// ${file}:`) && !l.includes(target));
    if (!want) throw new Error('no block of another source line is visible');
    result.texts.sass_other = want.trim();
    const line = page.locator('.editor-group-container').nth(1).locator('.view-line', { hasText: want.trim() }).first();
    const box = await line.boundingBox();
    await page.mouse.click(box.x + 40, box.y + box.height * 1.5); // the instruction under the header
    await page.waitForTimeout(800);
    result.texts.source_lit_after = await highlighted(page, 0);
    result.texts.sass_lit_after = await highlighted(page, 1);
  });
  // the end of the SASS, a click on an instruction of a run whose source line has an earlier run
  // higher up: the pane stays where it is (revealing the line's first run scrolled the click away)
  await step('sass_click_stays', async () => {
    await page.keyboard.press('Control+End');
    await page.waitForTimeout(500);
    const want = env('KP_SASS_CLICK');
    const line = page.locator('.editor-group-container').nth(1).locator('.view-line', { hasText: want }).first();
    const box = await line.boundingBox();
    await page.mouse.click(box.x + 60, box.y + box.height / 2);
    await page.waitForTimeout(800);
    result.texts.sass_click_visible = await visibleText(page, 1);
    result.texts.sass_click_source_lit = await highlighted(page, 0);
  });
  await step('sass_top', async () => {  // the document's first lines
    await page.keyboard.press('Control+Home');
    await page.waitForTimeout(500);
    result.texts.sass_top = await visibleText(page, 1);
  });
}

// the palette's entries for `query` (F1), then closes it
async function paletteEntries(page, query) {
  await quickInput(page, 'F1', query);
  await page.waitForTimeout(800);
  const rows = await page.$$eval('.quick-input-list .monaco-list-row', (els) => els.map((e) => e.getAttribute('aria-label') || e.innerText.trim()));
  await page.keyboard.press('Escape');
  return rows;
}

async function problemRows(page) {
  return page.$$eval('.markers-panel .monaco-list-row', (els) => els.map((e) => e.innerText.trim()));
}

async function scenarioRestricted(page) {
  const notes = '.notifications-toasts .notification-toast';
  result.texts.restricted_indicator = await page.$$eval('.part.statusbar .statusbar-item, .monaco-workbench .banner',
    (els) => els.map((e) => (e.getAttribute('aria-label') || e.innerText || '').trim()).filter((t) => /restricted/i.test(t))).catch(() => []);
  await step('problems_restricted', async () => {
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel', { state: 'visible', timeout: 10000 });
    result.texts.problems_restricted = await texts(page, '.markers-panel .monaco-list-row', RULE);
  });
  if (result.errors.length > 0) {  // KernelPro is off in Restricted Mode: nothing more to see
    await shot(page, 'restricted');
    return;
  }
  await step('lens_restricted', async () => {
    result.texts.code_lens_restricted = await texts(page, '.monaco-editor .codelens-decoration', 'regs');
  });
  await shot(page, 'restricted');
  // the Optimize lens runs the workspace's code: refused, with the reason
  await step('optimize_refused', async () => {
    const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Optimize/ }).first();
    await lens.click({ timeout: 15000 });
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => /Restricted Mode/.test(e.innerText)),
      notes, { timeout: 15000, polling: 100 });
    result.texts.optimize_notifications = await notifications(page);
  });
  await shot(page, 'optimize_refused');
  await page.keyboard.press('Escape');
  await step('palette_restricted', async () => {
    result.texts.palette_restricted = await paletteEntries(page, 'KernelPro: ');
  });
  result.texts.notifications_restricted = await notifications(page);
  // close the toasts: the next question must be the only one
  await page.$$eval('.notifications-toasts .codicon-notifications-clear, .notifications-toasts .codicon-close',
    (els) => els.forEach((e) => e.click())).catch(() => {});

  // trust the folder: the server restarts; the workspace's own interpreter is asked about first
  await step('trusted', async () => {
    await quickInput(page, 'F1', 'Workspaces: Manage Workspace Trust');
    await page.keyboard.press('Enter');
    const trust = page.locator('.workspace-trust-buttons .monaco-button', { hasText: /^Trust/ }).first();
    await trust.click({ timeout: 15000 });
    await page.waitForFunction(() => ![...document.querySelectorAll('.part.statusbar .statusbar-item')]
      .some((e) => /restricted mode/i.test(e.getAttribute('aria-label') || e.innerText)), null, { timeout: 15000, polling: 100 });
  });
  await step('interpreter_question', async () => {
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => /kernelpro\.interpreter/.test(e.innerText)),
      notes, { timeout: TIMEOUT, polling: 100 });
    result.texts.interpreter_question = (await notifications(page)).filter((t) => /kernelpro\.interpreter/.test(t));
    await shot(page, 'interpreter_question');
    const answer = env('KP_INTERPRETER_ANSWER', 'Keep mine');
    const toast = page.locator(notes, { hasText: 'kernelpro.interpreter' }).first();
    await toast.locator('.monaco-button', { hasText: answer }).first().click({ timeout: 10000 });
  });
  // back to the .cu file (the trust editor has the focus): the restarted server publishes again
  await step('problems_trusted', async () => {
    const file = env('KP_FILE');
    await quickInput(page, 'Control+P', file);
    await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.tabs-container .tab.active[aria-label*="${file}"]`, { timeout: TIMEOUT });
    await page.waitForTimeout(3000);
    await page.keyboard.press('Control+Shift+M');
    result.texts.problems_trusted = await texts(page, '.markers-panel .monaco-list-row', RULE);
  });
  await shot(page, 'trusted');
  await step('palette_trusted', async () => {
    result.texts.palette_trusted = await paletteEntries(page, 'KernelPro: ');
  });
  result.texts.notifications_trusted = await notifications(page);
}

let browser;
try {
  browser = await chromium.launch({
    executablePath: env('KP_CHROMIUM', '/usr/bin/chromium'), headless: true, timeout: 60000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  page.on('pageerror', (e) => result.errors.length < 20 && result.errors.push('pageerror: ' + String(e).slice(0, 200)));
  await page.goto(`${env('KP_URL')}/?folder=${encodeURIComponent(env('KP_FOLDER'))}`, { waitUntil: 'domcontentloaded', timeout: TIMEOUT });
  await page.waitForSelector('.monaco-workbench .part.editor', { timeout: TIMEOUT });
  await page.waitForSelector('.part.statusbar', { timeout: TIMEOUT });
  await page.waitForTimeout(1500); // first-layout churn
  mark('workbench');

  const file = env('KP_FILE');
  await page.locator('.monaco-workbench .part.editor').click({ position: { x: 400, y: 300 } }).catch(() => {});
  await quickInput(page, 'Control+P', file);
  await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 15000 });
  await page.keyboard.press('Enter');
  await page.waitForSelector(`.tabs-container .tab[aria-label*="${file}"]`, { timeout: TIMEOUT });
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines .view-line', { timeout: TIMEOUT });
  mark('file_opened');

  const scenario = env('KP_SCENARIO', 'fix');
  if (scenario === 'fix') {
    await scenarioFix(page);
  } else if (scenario === 'restricted') {
    await scenarioRestricted(page);
  } else {
    await scenarioStaleSass(page);
  }

  result.ok = result.errors.filter((e) => !e.startsWith('pageerror')).length === 0;
} catch (e) {
  result.errors.push('fatal: ' + String(e.stack || e).slice(0, 1500));
} finally {
  mark('total');
  fs.writeFileSync(path.join(OUT, 'result.json'), JSON.stringify(result, null, 2));
  if (browser) await browser.close().catch(() => {});
  process.exit(result.ok ? 0 : 1);
}
