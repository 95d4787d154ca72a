// The playground in a real browser: headless Chromium, driven by puppeteer-core
// (tools/npm), loads the page from a local server, types programs, switches
// every tab (which must leave the editor and its controls where they stand)
// and compares what the page shows with the native topos-play's output for
// the same program; then triggers a shape error and sees it at its
// line, and a program past the byte limit answered with topos-play's size
// error, the next program reading after it. Screenshots go to
// SCREENSHOTS/playground-*.png.
//
// usage: node tools/check-playground.mjs URL TOPOS_PLAY SCREENSHOTS
// (tools/check-playground starts the server and runs this.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(new URL('./npm/package.json', import.meta.url));
const puppeteer = require('puppeteer-core');

const [url, toposPlay, screenshots] = process.argv.slice(2);
if (!url || !toposPlay || !screenshots) {
  console.error('usage: node tools/check-playground.mjs URL TOPOS_PLAY SCREENSHOTS');
  process.exit(2);
}
mkdirSync(screenshots, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'topos-playground-'));
const repository = new URL('..', import.meta.url).pathname;

let failures = 0;
function check(passed, what, detail = '') {
  console.log(`playground: ${passed ? 'ok    ' : 'FAILED'} ${what}`);
  if (!passed) {
    failures += 1;
    if (detail) {
      console.log(detail);
    }
  }
}

// The first line where two texts differ, for a failure's message.
function firstDifference(expected, seen) {
  const a = expected.split('\n');
  const b = seen.split('\n');
  for (let line = 0; line < Math.max(a.length, b.length); ++line) {
    if (a[line] !== b[line]) {
      return `  line ${line + 1}:\n    topos-play: ${JSON.stringify(a[line])}\n    page:       ${JSON.stringify(b[line])}`;
    }
  }
  return '';
}

// topos-play's output for a program text: stdout, or stderr when it fails.
function native(program, ...flags) {
  const file = join(scratch, 'program.tp');
  writeFileSync(file, program);
  const run = spawnSync(toposPlay, [...flags, file], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout, err: run.stderr.replace(`topos-play: ${file}: `, '') };
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage();
await page.setViewport({ width: 1400, height: 1000 });
const problems = [];
page.on('console', (message) => {
  if (message.type() === 'error' || message.type() === 'warn') {
    problems.push(`console ${message.type()}: ${message.text()}`);
  }
});
page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));

const state = () => page.$eval('body', (body) => body.dataset.state);
const textOf = (selector) => page.$eval(selector, (element) => element.textContent);
async function settled(wanted) {
  await page.waitForFunction((s) => document.body.dataset.state === s, { timeout: 60000 }, wanted);
}

async function typeProgram(program) {
  await page.click('#source');
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(program, { delay: 0 });
  await page.click('#read');
}

async function showTab(name) {
  await page.click(`#tabs button[data-reading="${name}"]`);
  await page.waitForFunction(
    (n) => document.body.dataset.state !== 'reading' &&
      document.querySelector(`#tabs button[data-reading="${n}"]`).getAttribute('aria-selected') === 'true',
    { timeout: 60000 }, name);
}

// 1. The page loads, compiles the module and reads the preloaded walk-through.
const started = Date.now();
await page.goto(url, { waitUntil: 'load' });
await settled('ready');
const walkthrough = readFileSync(join(repository, 'playground/walkthrough.tp'), 'utf8');
check((await page.$eval('#source', (s) => s.value)) === walkthrough,
  'the editor holds playground/walkthrough.tp');
const walkSummary = native(walkthrough, '--reading', 'summary').out.trim();
const shownSummary = (await textOf('#summary')).trim();
check(shownSummary === walkSummary,
  `the walk-through reads in ${Date.now() - started} ms: "${shownSummary}", as topos-play prints`,
  `  topos-play: ${walkSummary}`);
await page.screenshot({ path: join(screenshots, 'playground-walkthrough.png') });

// 2. A typed program: every tab shows what topos-play prints for it.
const mlp = readFileSync(join(repository, 'tests/lang/programs/mlp.tp'), 'utf8');
await typeProgram(mlp);
await settled('ready');
check((await textOf('#summary')).trim() === native(mlp, '--reading', 'summary').out.trim(),
  'a typed program (tests/lang/programs/mlp.tp) reads, with topos-play\'s summary line');
// Where the editor stands and how tall each control's label is: a tab must
// change neither (no column squeezed by a wide reading, no label wrapped).
const layout = () => page.evaluate(() => {
  const editor = document.querySelector('#editor').getBoundingClientRect();
  const labels = [...document.querySelectorAll('#controls label')]
    .map((label) => `${label.textContent.trim().split(/\s+/)[0]} ${Math.round(label.getBoundingClientRect().height)}px`);
  return `editor at x ${Math.round(editor.left)}, ${Math.round(editor.width)}px wide; labels ${labels.join(', ')}`;
});
const steadyLayout = await layout();
const layoutMoves = [];
for (const reading of ['spec', 'derivative', 'plan', 'stablehlo', 'values']) {
  await showTab(reading);
  const seenLayout = await layout();
  if (seenLayout !== steadyLayout) {
    layoutMoves.push(`  tab ${reading}: ${seenLayout}`);
  }
  const seen = await textOf('#text');
  const expected = native(mlp, '--reading', reading).out;
  check(seen === expected, `tab ${reading}: ${expected.split('\n').length - 1} lines, as topos-play prints`,
    firstDifference(expected, seen));
  await page.screenshot({ path: join(screenshots, `playground-${reading}.png`), fullPage: true });
}
check(layoutMoves.length === 0, `every tab leaves the editor and its controls in place: ${steadyLayout}`,
  layoutMoves.join('\n'));
await showTab('picture');
await page.waitForSelector('#drawing svg', { timeout: 60000 });
const boxes = await page.$$eval('#drawing svg g.node', (nodes) => nodes.length);
const dot = native(mlp, '--reading', 'picture').out;
check((await textOf('#dot')) === dot && boxes > 0,
  `tab picture: Graphviz laid out ${boxes} boxes from topos-play's DOT text`);
await page.screenshot({ path: join(screenshots, 'playground-picture.png'), fullPage: true });

// 3. The controls: an observed name, another target, fast numerics.
await showTab('values');
await page.type('#observed', 'h');
await page.keyboard.press('Tab');
await settled('ready');
check((await textOf('#text')) === native(mlp, '--observe', 'h', '--reading', 'values').out,
  'observe h: the values tab shows h, as topos-play --observe h prints');
await page.$eval('#observed', (field) => { field.value = ''; });
await page.type('#target', 'loss');
await page.keyboard.press('Tab');
await settled('ready');
await page.select('#numerics', 'fast');
await settled('ready');
const fast = native(mlp, '--numerics', 'fast', '--reading', 'values').out;
const names = (text) => text.split('\n').map((line) => line.replace(/[-+0-9.e]+/g, '#'));
const seenFast = await textOf('#text');
check(JSON.stringify(names(seenFast)) === JSON.stringify(names(fast)),
  'numerics fast: the values tab lists what topos-play --numerics fast lists');
await page.select('#numerics', 'exact');
await settled('ready');
await page.$eval('#target', (field) => { field.value = ''; });

// 4. A shape error: its message as topos-play writes it, marked at its line.
const wrong = 'a = parameter [2, 3]\nb = parameter [4, 5]\nc = a @ b\nloss = sum(c)\n';
await typeProgram(wrong);
await settled('error');
const expectedError = native(wrong).err.trim();
const shownError = (await textOf('#error')).trim();
const marked = await page.$eval('#gutter .error-line', (line) => line.textContent).catch(() => '');
const markVisible = await page.$eval('#mark', (mark) => !mark.hidden);
check(shownError === expectedError && expectedError.startsWith('line 3, column') &&
  marked === '3' && markVisible,
  `a shape error shows at line ${marked}: "${shownError}"`, `  topos-play: ${expectedError}`);
await page.screenshot({ path: join(screenshots, 'playground-error.png') });

// 5. Mended, the program reads again and the mark goes.
await typeProgram(wrong.replace('[4, 5]', '[3, 5]'));
await settled('ready');
const cleared = await page.$eval('#error', (error) => error.hidden) &&
  (await page.$$('#gutter .error-line')).length === 0;
check(cleared, 'mended, the program reads and the error and its mark are gone');

// 6. A program past the byte limit (2 MB, mostly one comment): the size error
// as topos-play writes it, and the module still reads the next program.
const huge = `a = parameter [2]\nloss = sum(a * a)\n# ${'x'.repeat(2 * 1024 * 1024)}\n`;
const hugeError = native(huge).err.trim();
await page.$eval('#source', (source, text) => { source.value = text; }, huge);
await page.click('#read');
const shownHuge = await settled('error').then(() => textOf('#error'), (failure) => `no error shown (${failure.message})`);
check(shownHuge.trim() === hugeError && hugeError.includes('the program is longer than 1048576 bytes'),
  `a 2 MB program shows topos-play's size error: "${shownHuge.trim().slice(0, 120)}"`, `  topos-play: ${hugeError}`);
const next = wrong.replace('[4, 5]', '[3, 5]');
await typeProgram(next);
const shownNext = await settled('ready').then(() => textOf('#summary'), (failure) => `no summary (${failure.message})`);
check(shownNext.trim() === native(next, '--reading', 'summary').out.trim(),
  `the next program reads after it: "${shownNext.trim()}", as topos-play prints`);

check(problems.length === 0, `no console message, page error or failed request`, problems.join('\n'));
await browser.close();
console.log(`playground: ${failures === 0 ? 'every check passed' : `${failures} checks FAILED`}; screenshots in ${screenshots}`);
process.exit(failures === 0 ? 0 : 1);
