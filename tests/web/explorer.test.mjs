// explorer.test.mjs - the explorer page in a real browser: Debian's chromium
// driven by playwright-core, on the page `mortar report` writes for the
// synthetic database of make_db.c. Every expected number comes from
// make_db's manifest (what it wrote into the database), never from the page.
// Leaves a screenshot in the build's Testing/explorer.png.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

import { MORTAR, freshDatabase, gridRun, need, pageData, run } from './common.mjs';

const CHROMIUM = process.env.MORTAR_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`skipped: no browser at ${CHROMIUM} (apt-get install chromium, or tools/setup.sh)`);
  process.exit(77);
}
const packages = need('WEB_PACKAGES');
let chromium;
try {
  ({ chromium } = createRequire(join(packages, 'package.json'))('playwright-core'));
} catch (e) {
  console.error(`playwright-core is not installed in ${packages}/node_modules: build the "web" ` +
    `target, which runs npm ci there (${e.message})`);
  process.exit(1);
}

let fx, data, browser, page;
const problems = []; // console errors and uncaught exceptions

before(async () => {
  fx = freshDatabase('explorer');
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', join(fx.dir, 'report')]);
  assert.equal(r.code, 0, r.stderr);
  const file = r.stdout.trim();
  data = pageData(readFileSync(file, 'utf8'));
  browser = await chromium.launch({ executablePath: CHROMIUM });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
});

after(async () => {
  if (browser) await browser.close();
});

// ---- helpers

const fields = ['median_us', 'p99_us', 'alone_us', 'service_us', 'compute_us'];

async function card(design) {
  const c = page.locator(`#card-${design}`);
  const out = { winner: await c.getAttribute('data-winner'), runId: +(await c.getAttribute('data-run-id')) };
  for (const f of fields) {
    const dd = c.locator(`[data-field="${f}"]`);
    const v = await dd.getAttribute('data-value');
    out[f] = v === '' ? null : +v;
    out[f + '_text'] = await dd.textContent();
  }
  return out;
}

const verdictCell = (L, s) => data.verdict &&
  data.verdict.cells.find((c) => c.pcie_latency_us === L && c.speed === s);

// The cards show what the database holds for (L, s), and the faster design
// (lower median, as written) is marked the winner.
async function expectCards(L, s) {
  const a = gridRun(fx.manifest, 'a', L, s), b = gridRun(fx.manifest, 'b', L, s);
  for (const [d, want] of [['a', a], ['b', b]]) {
    const got = await card(d);
    const where = `design ${d} at L=${L} us, ${s}x`;
    assert.equal(got.runId, want.run_id, where);
    assert.equal(got.median_us, want.median_us, `${where}: median`);
    assert.equal(got.p99_us, want.p99_us, `${where}: p99`);
    assert.match(got.median_us_text, /^[\d,]+\.\d µs$/, `${where}: median shown with its unit`);
    if (data.verdict) {
      assert.equal(got.service_us, want.service_us, `${where}: service time`);
      assert.equal(got.compute_us, want.compute_us, `${where}: time computing`);
      assert.equal(got.alone_us, verdictCell(L, s)[d].alone_us, `${where}: alone`);
      const faster = a.median_us < b.median_us ? 'a' : 'b';
      assert.equal(got.winner, String(d === faster), `${where}: winner`);
    }
  }
}

async function sliderIndexes() {
  return [+(await page.inputValue('#slider-latency')), +(await page.inputValue('#slider-speed'))];
}

// ---- the tests

test('the page loads without console errors and shows the verdict', async () => {
  assert.deepEqual(problems, []);
  assert.match(await page.title(), /mortar explorer/);
  const runs = 1 + fx.manifest.grid.length + fx.manifest.baselines.length + fx.manifest.load.length;
  assert.match(await page.textContent('#meta'), new RegExp(`^${runs} runs \\(${runs - 1} finished ok\\)`));
  if (data.verdict) {
    assert.equal(await page.textContent('#verdict-headline'), data.verdict.summary[0]);
    assert.equal(await page.locator('#crossovers tbody tr').count(), data.verdict.crossovers.length);
    assert.ok(await page.isHidden('#verdict-error'));
  } else {
    assert.match(await page.textContent('#verdict-error'), /No verdict/);
  }
  assert.equal(await page.locator('#runs tbody tr').count(), runs);
});

test("moving the sliders shows that cell's numbers from the database in the cards", async () => {
  // It opens at the lowest latency and 1x.
  assert.deepEqual(await sliderIndexes(), [0, 0]);
  await expectCards(0.5, 1);

  await page.focus('#slider-latency');
  await page.keyboard.press('End');
  assert.equal(await page.textContent('#latency-value'), '2 µs');
  await expectCards(2, 1);

  await page.focus('#slider-speed');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.textContent('#speed-value'), '2×');
  await expectCards(2, 2);

  await page.focus('#slider-latency');
  await page.keyboard.press('ArrowLeft');
  await expectCards(1, 2);
  assert.deepEqual(problems, []);
});

test('clicking a map cell selects it: the sliders and the cards follow', async () => {
  const cells = page.locator('#map .map-cell');
  assert.equal(await cells.count(), fx.manifest.latencies_us.length * fx.manifest.speeds.length);
  const target = page.locator('#map .map-cell[data-latency="0.5"][data-speed="2"]');
  await target.click();
  assert.deepEqual(await sliderIndexes(), [0, 1]);
  assert.match(await target.getAttribute('class'), /\bselected\b/);
  assert.equal(await page.locator('#map .map-cell.selected').count(), 1);
  await expectCards(0.5, 2);
  if (data.verdict) {
    for (const g of fx.manifest.grid.filter((x) => x.design === 'a')) {
      const b = gridRun(fx.manifest, 'b', g.pcie_latency_us, g.speed);
      const cell = page.locator(`#map .map-cell[data-latency="${g.pcie_latency_us}"][data-speed="${g.speed}"]`);
      assert.equal(await cell.getAttribute('data-winner'), g.median_us < b.median_us ? 'a' : 'b',
        `map at L=${g.pcie_latency_us}, ${g.speed}x`);
    }
  }
});

test("clicking a card draws that design's traced request as swim lanes in µs", async () => {
  await page.locator('#map .map-cell[data-latency="1"][data-speed="1"]').click();
  for (const d of ['b', 'a']) {
    await page.click(`#card-${d}`);
    const want = gridRun(fx.manifest, d, 1, 1);
    const tl = page.locator('#timeline');
    assert.equal(await page.getAttribute(`#card-${d}`, 'data-selected'), 'true');
    assert.equal(await tl.getAttribute('data-design'), d);
    assert.equal(+(await tl.getAttribute('data-run-id')), want.run_id);
    assert.equal(await tl.getAttribute('data-state'), 'drawn');
    const trace = data.traces[String(want.run_id)];
    assert.equal(await page.locator('#timeline .lane').count(), trace.tracks.length);
    assert.ok(await page.locator('#timeline .lane-events[data-track="accel"] rect').count() > 10);
    assert.match(await page.textContent('#timeline .axis-title'), /µs/);
    assert.match(await page.textContent('#timeline-zoom'), new RegExp(
      `${(want.median_us).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} µs end to end`));
    assert.ok(await page.isHidden('#timeline-empty'));
  }
});

test('dragging across the timeline zooms in; Reset zoom shows the whole request', async () => {
  const svg = page.locator('#timeline svg');
  await svg.scrollIntoViewIfNeeded();
  const box = await svg.boundingBox();
  await page.mouse.move(box.x + 400, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + 520, box.y + 60, { steps: 5 });
  await page.mouse.up();
  assert.match(await page.textContent('#timeline-zoom'), /^showing [\d.,]+ µs to [\d.,]+ µs of /);
  await page.click('#timeline-reset');
  assert.match(await page.textContent('#timeline-zoom'), /end to end$/);
});

test('a run without a trace says so instead of a timeline', async () => {
  const untraced = fx.manifest.grid.find((g) => !g.traced);
  await page.locator(`#map .map-cell[data-latency="${untraced.pcie_latency_us}"][data-speed="${untraced.speed}"]`).click();
  await page.click(`#card-${untraced.design}`);
  assert.equal(await page.getAttribute('#timeline', 'data-state'), 'empty');
  assert.match(await page.textContent('#timeline-empty'), /^No trace recorded for this run/);
  assert.equal(await page.locator('#timeline svg').count(), 0);
});

test('the charts and tables hold the database numbers', async () => {
  // The latency chart follows the selected speed.
  await page.locator('#map .map-cell[data-latency="1"][data-speed="2"]').click();
  const series = await page.evaluate(() => window.Chart.getChart('latency-chart').data.datasets
    .map((d) => ({ label: d.label, points: d.data.map((p) => [p.x, p.y]) })));
  for (const [i, d] of [[0, 'a'], [1, 'b']]) {
    assert.deepEqual(series[i].points, fx.manifest.latencies_us.map((L) => [L, gridRun(fx.manifest, d, L, 2).median_us]));
  }
  if (data.verdict) {
    const cross = data.verdict.crossovers.find((c) => c.speed === 2);
    assert.equal(await page.textContent('#crossover-text'), cross.text);
    if (cross.latency_us !== null) assert.match(series[2].label, /^crossover at L ≈ [\d.]+ µs$/);
  }
  // Baselines: one row per latency; load: one per design, latency and in-flight count.
  assert.equal(await page.locator('#baselines tbody tr').count(), fx.manifest.latencies_us.length);
  const sw = fx.manifest.baselines.find((b) => b.design === 'software' && b.pcie_latency_us === 0.5);
  assert.match(await page.textContent('#baselines tbody tr:first-child'), new RegExp(
    sw.median_us.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })));
  const loadRows = fx.manifest.load.length + 4; // + the one-in-flight grid run of each series
  assert.equal(await page.locator('#load tbody tr').count(), loadRows);
  const tput = await page.evaluate(() => window.Chart.getChart('load-throughput-chart').data.datasets.length);
  assert.equal(tput, 4);
  assert.deepEqual(problems, []);
});

test('a database without runs gives a page that says so', async () => {
  const empty = join(fx.dir, 'empty.db');
  assert.equal(run(MORTAR, ['results', '--db', empty]).code, 0); // creates it
  const r = run(MORTAR, ['report', '--db', empty, '--out', join(fx.dir, 'empty')]);
  assert.equal(r.code, 0, r.stderr);
  const p = await browser.newPage();
  const errors = [];
  p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  p.on('pageerror', (e) => errors.push(e.message));
  await p.goto(pathToFileURL(r.stdout.trim()).href);
  await p.waitForSelector('body[data-ready="true"]');
  assert.match(await p.textContent('#page-error'), /no runs yet/);
  assert.match(await p.textContent('#verdict-error'), /^(No verdict: |Nothing to conclude yet)/);
  assert.ok(await p.isHidden('#explore'));
  assert.deepEqual(errors, []);
  await p.close();
});

test('a screenshot of the page is left in Testing/explorer.png', async () => {
  await page.locator('#map .map-cell[data-latency="1"][data-speed="1"]').click();
  await page.click('#card-a');
  const dir = need('WEB_SCREENSHOT_DIR');
  mkdirSync(dir, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(dir, 'explorer.png'), fullPage: true });
  assert.ok(existsSync(join(dir, 'explorer.png')));
  assert.deepEqual(problems, []);
});
