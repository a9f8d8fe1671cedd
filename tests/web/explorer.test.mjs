// explorer.test.mjs - the explorer page in a real browser: Debian's chromium
// driven by playwright-core, on the page `mortar report` writes for the
// synthetic database of make_db.c, opened from disk (file://, with the trace
// scripts beside it), and once as `mortar serve` serves it. Every expected
// number comes from make_db's manifest (what it wrote into the database),
// never from the page. Leaves screenshots in the build's Testing/: the page
// at 1280 px (explorer.png) and at 390 px, a phone's width (explorer-390.png).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

import { MAKE_DB, MORTAR, exited, freshDatabase, gridRun, need, pageData, run, startServe, traceScript } from './common.mjs';

const CHROMIUM = process.env.MORTAR_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`skipped: no browser at ${CHROMIUM} (apt-get install chromium, or tools/setup.sh)`);
  process.exit(77);
}
const packages = need('WEB_PACKAGES');
let chromium, axeScript;
try {
  const require = createRequire(join(packages, 'package.json'));
  ({ chromium } = require('playwright-core'));
  axeScript = require.resolve('axe-core/axe.min.js');
} catch (e) {
  console.error(`playwright-core or axe-core is not installed in ${packages}/node_modules: build ` +
    `the "web" target, which runs npm ci there (${e.message})`);
  process.exit(1);
}

let fx, data, reportDir, pageUrl, browser, page;
const problems = []; // console errors and uncaught exceptions

before(async () => {
  fx = freshDatabase('explorer');
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', join(fx.dir, 'report')]);
  assert.equal(r.code, 0, r.stderr);
  const file = r.stdout.trim();
  reportDir = dirname(file);
  data = pageData(readFileSync(file, 'utf8'));
  browser = await chromium.launch({ executablePath: CHROMIUM });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  pageUrl = pathToFileURL(file).href;
  await page.goto(pageUrl);
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
  data.verdict.cells.find((c) => c.x === L && c.series === s);

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

// The timeline `mortar report` wrote for run `id` (traces/<id>.js).
const writtenTrace = (id) =>
  traceScript(readFileSync(join(reportDir, 'traces', `${id}.js`), 'utf8')).timeline;

// Waits until #timeline of page `p` shows run `runId` settled (drawn, empty
// or failed to load: the trace is loaded on demand) and returns that state.
async function timelineSettles(p, runId) {
  await p.waitForFunction((id) => {
    const tl = document.getElementById('timeline');
    return tl.dataset.runId === String(id) && ['drawn', 'empty', 'error'].includes(tl.dataset.state);
  }, runId, { timeout: 30000 });
  return p.getAttribute('#timeline', 'data-state');
}

async function sliderIndexes() {
  return [+(await page.inputValue('#slider-x')), +(await page.inputValue('#slider-series'))];
}

// Opens the page in a new tab `width` px wide, with every <details> open and
// the first card's trace drawn; {p, problems} (console errors and exceptions).
async function openAt(width) {
  const p = await browser.newPage({ viewport: { width, height: 900 } });
  const found = [];
  p.on('console', (m) => m.type() === 'error' && found.push(`console: ${m.text()}`));
  p.on('pageerror', (e) => found.push(`exception: ${e.message}`));
  await p.goto(pageUrl);
  await p.waitForSelector('body[data-ready="true"]');
  await timelineSettles(p, gridRun(fx.manifest, 'a', 0.5, 1).run_id);
  await p.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
  return { p, problems: found };
}

// axe-core's violations on page `p` (WCAG 2.0/2.1 A and AA, and its best
// practices), as {id, impact, nodes, targets}.
async function axeViolations(p) {
  await p.addScriptTag({ path: axeScript });
  return p.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
}

// Every place where page `p` is wider than its window: the page itself, and
// the outermost elements that stick out of it (other than inside a box that
// scrolls).
function overflow(p) {
  return p.evaluate(() => {
    const out = [];
    const W = window.innerWidth;
    if (document.documentElement.scrollWidth > W)
      out.push({ node: document.createElement('p'), text: `the page is ${document.documentElement.scrollWidth} px wide in ${W} px` });
    const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect();
      if (!r.width || r.right <= W + 0.5) continue;
      let a = e.parentElement;
      while (a && !scrolls(a)) a = a.parentElement;
      if (!a && !out.some((o) => o.node.contains(e))) out.push({ node: e, text: `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className.baseVal ?? e.className} ends at ${Math.round(r.right)} px` });
    }
    return out.map((o) => o.text ?? o).slice(0, 12);
  });
}

// ---- the tests

test('the page loads without console errors and shows the verdict', async () => {
  assert.deepEqual(problems, []);
  assert.match(await page.title(), /mortar explorer/);
  const runs = 1 + fx.manifest.grid.length + fx.manifest.baselines.length + fx.manifest.load.length +
    fx.manifest.extra.length;
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

test('the page opens with the answer: one sentence and its three figures, as the verdict gives them', async () => {
  // The first panel of the page.
  assert.equal(await page.evaluate(() => document.querySelector('main .panel:not([hidden])').id), 'answer');
  const ans = data.answer;
  // The far end where both ran, at the series' reference value (1x): the
  // database's medians, and the verdict's alone times and crossing.
  const far = Math.max(...fx.manifest.latencies_us);
  const a = gridRun(fx.manifest, 'a', far, 1), b = gridRun(fx.manifest, 'b', far, 1);
  assert.deepEqual([ans.series, ans.system.x, ans.system.a_us, ans.system.b_us, ans.system.winner],
    [1, far, a.median_us, b.median_us, a.median_us < b.median_us ? 'a' : 'b']);
  assert.equal(ans.system.times, Math.max(a.median_us, b.median_us) / Math.min(a.median_us, b.median_us));
  const alone = data.verdict.alone.find((r) => r.series === 1);
  assert.deepEqual([ans.alone.winner, ans.alone.a_us, ans.alone.b_us], [alone.winner, alone.a_us, alone.b_us]);
  const cross = data.verdict.crossovers.find((c) => c.series === 1);
  assert.equal(ans.flip.x, cross.crossings[0].x);
  // The page shows the sentence the report worded, each number with its unit.
  const two = (v) => v.toFixed(2);
  assert.equal(await page.textContent('#answer-text'), ans.text);
  assert.equal(ans.text,
    `At compute speed 1×, Design A is ${two(ans.alone.times)}× faster alone, but ${two(ans.system.times)}× ` +
    `slower in the whole system at L = ${far} µs: the ranking flips at L ≈ ${two(ans.flip.x)} µs.`);
  // The figures as the report worded them (cli/study/verdict_answer_text.c),
  // shown as given: the page words none of its own.
  const figures = await page.$$eval('#answer-figures .figure', (fs) => fs.map((f) => ({ figure: f.dataset.figure,
    title: f.querySelector('h3').textContent, value: f.querySelector('.figure-value').textContent,
    what: f.querySelector('.figure-what').textContent, detail: f.querySelector('.figure-detail').textContent })));
  assert.deepEqual(figures, ans.figures);
  const one = (v) => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  assert.deepEqual(ans.figures.map((f) => [f.figure, f.title, f.value, f.what]), [
    ['alone', 'Alone', `${two(ans.alone.times)}×`, 'Design A faster'],
    ['system', `In the whole system at L = ${far} µs`, `${two(ans.system.times)}×`, 'Design A slower'],
    ['flip', 'Where the ranking flips', `L ≈ ${two(ans.flip.x)} µs`, 'Design A faster below, Design B above']]);
  assert.equal(ans.figures[1].detail, `${one(a.median_us)} µs (A) against ${one(b.median_us)} µs (B): ` +
    `${one(Math.abs(a.median_us - b.median_us))} µs apart`);
  assert.equal(ans.figures[2].detail, 'measured between runs at 1 and 1.03125 µs');
});

test('the page names the variants, knobs and parts as the study in its data does', async () => {
  const st = data.study;
  const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);
  const x = st.knobs.find((k) => k.name === st.x), s = st.knobs.find((k) => k.name === st.series);
  assert.equal((await page.textContent('#x-label')).trim(), cap(x.title));
  assert.equal((await page.textContent('#series-label')).trim(), cap(s.title));
  for (const d of st.compare) {
    const v = st.variants.find((w) => w.name === d);
    assert.equal(await page.textContent(`#card-${d} h3`), `${cap(st.axis)} ${v.label}`);
    const fieldsText = await page.textContent(`#card-${d} .fields`);
    for (const p of st.metric.parts) assert.ok(fieldsText.includes(p.label), `${d}: ${p.label}`);
  }
  // The case study's names, as they read before they came from the study.
  assert.equal(x.title, 'one-way PCIe latency');
  assert.deepEqual(await page.$$eval('#baselines thead th', (ths) => ths.map((t) => t.textContent)),
    ['One-way PCIe latency', 'Software', 'Register copy', 'Design A at x8', 'Design B at x8',
      'Design A', 'Design B']);
  assert.deepEqual(await page.$$eval('#load thead th', (ths) => ths.map((t) => t.textContent)),
    ['Design', 'One-way PCIe latency', 'In flight', 'Throughput', 'Median', 'p99', 'Next queued']);
  assert.equal(await page.textContent('#map .corner'), 'speed ↑ / L →');
});

test("moving the sliders shows that cell's numbers from the database in the cards", async () => {
  // It opens at the lowest latency and 1x.
  assert.deepEqual(await sliderIndexes(), [0, 0]);
  await expectCards(0.5, 1);

  await page.focus('#slider-x');
  await page.keyboard.press('End');
  assert.equal(await page.textContent('#x-value'), '2 µs');
  await expectCards(2, 1);

  await page.focus('#slider-series');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.textContent('#series-value'), '2×');
  await expectCards(2, 2);

  await page.focus('#slider-x');
  await page.keyboard.press('ArrowLeft');
  await expectCards(1, 2);
  assert.deepEqual(problems, []);
});

test('clicking a map cell selects it: the sliders and the cards follow', async () => {
  const cells = page.locator('#map .map-cell');
  assert.equal(await cells.count(), fx.manifest.latencies_us.length * fx.manifest.speeds.length);
  const target = page.locator('#map .map-cell[data-x="0.5"][data-series="2"]');
  await target.click();
  assert.deepEqual(await sliderIndexes(), [0, 1]);
  assert.match(await target.getAttribute('class'), /\bselected\b/);
  assert.equal(await page.locator('#map .map-cell.selected').count(), 1);
  await expectCards(0.5, 2);
  if (data.verdict) {
    for (const g of fx.manifest.grid.filter((x) => x.design === 'a')) {
      const b = gridRun(fx.manifest, 'b', g.pcie_latency_us, g.speed);
      const cell = page.locator(`#map .map-cell[data-x="${g.pcie_latency_us}"][data-series="${g.speed}"]`);
      assert.equal(await cell.getAttribute('data-winner'), g.median_us < b.median_us ? 'a' : 'b',
        `map at L=${g.pcie_latency_us}, ${g.speed}x`);
    }
  }
});

// The split of the traced median request in a card: the six parts in
// order, in picoseconds as data-ps and in µs as text.
async function cardSplit(design) {
  const b = page.locator(`#card-${design} .breakdown`);
  if (!(await b.count()) || (await b.getAttribute('class')).includes('breakdown-none')) return null;
  const items = b.locator('.bar-legend li');
  const parts = [];
  for (let i = 0; i < await items.count(); i++) {
    const li = items.nth(i);
    parts.push({ part: await li.getAttribute('data-part'), ps: +(await li.getAttribute('data-ps')),
      text: await li.textContent() });
  }
  return { latencyPs: +(await b.getAttribute('data-latency-ps')), parts,
    segments: await b.locator('.bar .seg').count() };
}

test("each traced card shows where its median request's time goes, the parts summing to it", async () => {
  const order = ['client_software', 'network', 'server_software', 'host_interface', 'pcie_wire',
    'compute'];
  for (const g of fx.manifest.grid) {
    await page.locator(`#map .map-cell[data-x="${g.pcie_latency_us}"][data-series="${g.speed}"]`).click();
    const where = `design ${g.design} at L=${g.pcie_latency_us} us, ${g.speed}x`;
    const split = await cardSplit(g.design);
    if (!g.traced) {
      assert.equal(split, null, where);
      assert.match(await page.textContent(`#card-${g.design} .breakdown-none`), /--trace/, where);
      continue;
    }
    assert.ok(split, `${where}: a split`);
    // make_db's median request (index 5) took exactly the run's median.
    assert.equal(split.latencyPs, Math.round(g.median_us * 1e6), `${where}: the median request`);
    assert.deepEqual(split.parts.map((p) => p.part), order, `${where}: the six parts`);
    assert.equal(split.parts.reduce((t, p) => t + p.ps, 0), split.latencyPs, `${where}: sum`);
    for (const p of split.parts) assert.match(p.text, /[\d.,]+ µs$/, `${where}: ${p.part} in µs`);
    assert.ok(split.segments >= 3, `${where}: a stacked bar`);
    // make_db's compute steps do not overlap: compute is the time computing
    // (each step's ends rounded to the picosecond).
    const compute = split.parts.find((p) => p.part === 'compute').ps;
    assert.ok(Math.abs(compute - g.compute_us * 1e6) <= 64, `${where}: compute ${compute}`);
  }
  await page.locator('#map .map-cell[data-x="0.5"][data-series="1"]').click();
  assert.deepEqual(problems, []);
});

test("clicking a card draws that design's traced request as swim lanes in µs", async () => {
  await page.locator('#map .map-cell[data-x="1"][data-series="1"]').click();
  for (const d of ['b', 'a']) {
    await page.click(`#card-${d}`);
    const want = gridRun(fx.manifest, d, 1, 1);
    const tl = page.locator('#timeline');
    assert.equal(await page.getAttribute(`#card-${d}`, 'data-selected'), 'true');
    assert.equal(await tl.getAttribute('data-variant'), d);
    assert.equal(+(await tl.getAttribute('data-run-id')), want.run_id);
    assert.equal(await timelineSettles(page, want.run_id), 'drawn');
    const trace = writtenTrace(want.run_id);
    assert.equal(await page.locator('#timeline .lane').count(), trace.tracks.length);
    assert.ok(await page.locator('#timeline .flow').count() > 0, 'causal arrows');
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

test('two fingers pinch the timeline: spread apart they zoom in, closed together they zoom out', async () => {
  // A phone's screen: touch points sent as the browser gets them from a
  // touchscreen (CDP Input.dispatchTouchEvent), two at once.
  const p = await browser.newPage({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    await p.goto(pageUrl);
    await p.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await timelineSettles(p, gridRun(fx.manifest, 'a', 0.5, 1).run_id), 'drawn');
    const svg = p.locator('#timeline svg');
    await svg.scrollIntoViewIfNeeded();
    const box = await svg.boundingBox();
    const cdp = await p.context().newCDPSession(p);
    const y = box.y + 40, mid = box.x + 86 + (box.width - 86 - 8) / 2; // the plot's middle
    const pinch = async (fromGap, toGap) => {
      const points = (gap) => [{ x: mid - gap / 2, y, id: 1 }, { x: mid + gap / 2, y, id: 2 }];
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: points(fromGap) });
      for (let i = 1; i <= 6; i++)
        await cdp.send('Input.dispatchTouchEvent',
          { type: 'touchMove', touchPoints: points(fromGap + ((toGap - fromGap) * i) / 6) });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };
    // The view's width in µs, from "showing a µs to b µs of c µs" or the
    // whole request's "c µs end to end".
    const shown = async () => {
      const t = await p.textContent('#timeline-zoom');
      const m = t.match(/^showing ([\d.,]+) µs to ([\d.,]+) µs of /);
      return m ? +m[2].replace(/,/g, '') - +m[1].replace(/,/g, '') : +t.match(/([\d.,]+) µs end to end$/)[1].replace(/,/g, '');
    };
    const whole = await shown();
    await pinch(40, 160);
    const zoomed = await shown();
    assert.ok(zoomed < whole * 0.5, `spread apart: ${whole} µs shown, then ${zoomed} µs`);
    await pinch(160, 80);
    const wider = await shown();
    assert.ok(wider > zoomed * 1.5, `closed together: ${zoomed} µs shown, then ${wider} µs`);
    assert.ok(wider <= whole, `${wider} µs of ${whole}`);
    await cdp.detach();
  } finally {
    await p.close();
  }
});

test('the timeline zooms and pans by its buttons and by keys when focused, the focus staying on it', async () => {
  const zoomText = () => page.textContent('#timeline-zoom');
  const shown = async () => (await zoomText()).match(/^showing ([\d.,]+) µs to ([\d.,]+) µs of /)
    .slice(1).map((t) => +t.replace(/,/g, ''));
  assert.ok(await page.isDisabled('#timeline-earlier'));
  await page.click('#timeline-zoom-in');
  const [a0, a1] = await shown();
  await page.click('#timeline-later');
  const [b0, b1] = await shown();
  assert.ok(b0 > a0 && Math.abs((b1 - b0) - (a1 - a0)) < 0.2, `panned later: ${a0}-${a1} then ${b0}-${b1}`);
  await page.focus('#timeline svg');
  await page.keyboard.press('+');
  const [c0, c1] = await shown();
  assert.ok(c1 - c0 < (b1 - b0) * 0.6, 'zoomed in by +');
  await page.keyboard.press('ArrowLeft');
  assert.ok((await shown())[0] < c0, 'panned earlier by ←');
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'svg');
  await page.keyboard.press('0');
  assert.match(await zoomText(), /end to end$/);
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'svg');
});

test('the keyboard alone reaches the sliders, every map cell, the cards, the timeline and the tables', async () => {
  await page.focus('#slider-x');
  const reached = new Set();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => {
      const e = document.activeElement;
      if (e.classList.contains('map-cell')) return `map ${e.dataset.x} ${e.dataset.series}`;
      return e.id || (e.closest('[id]') && `in ${e.closest('[id]').id}`) || e.tagName;
    }));
  }
  const want = ['slider-series', 'card-a', 'card-b', 'in timeline', 'timeline-zoom-in', 'in crossovers-box',
    'in latency-panel', 'in baselines-panel', 'in runs-panel',
    ...fx.manifest.latencies_us.flatMap((L) => fx.manifest.speeds.map((s) => `map ${L} ${s}`))];
  for (const w of want) assert.ok(reached.has(w), `Tab does not reach ${w}: ${[...reached].join(', ')}`);
  // Each slider tells a screen reader its value with its unit.
  assert.equal(await page.getAttribute('#slider-x', 'aria-valuetext'), await page.textContent('#x-value'));
  assert.match(await page.getAttribute('#slider-series', 'aria-valuetext'), /^[\d.]+×$/);
  // The map's buttons are named by their text, which begins with where they are.
  const name = await page.locator('#map .map-cell[data-x="2"][data-series="1"]').textContent();
  assert.match(name, /^L = 2 µs, speed 1×: faster: B/);
});

test('the address carries the selection: a link opens that view, and each change rewrites it', async () => {
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  try {
    await p.goto(pageUrl + '#x=2&series=2&variant=b');
    await p.waitForSelector('body[data-ready="true"]');
    assert.deepEqual([+(await p.inputValue('#slider-x')), +(await p.inputValue('#slider-series'))], [2, 1]);
    const b22 = gridRun(fx.manifest, 'b', 2, 2);
    assert.equal(await p.getAttribute('#card-b', 'data-selected'), 'true');
    assert.equal(+(await p.getAttribute('#card-b', 'data-run-id')), b22.run_id);
    assert.equal(+(await p.getAttribute('#timeline', 'data-run-id')), b22.run_id);
    const hash = () => p.evaluate(() => location.hash);
    const entries = await p.evaluate(() => history.length);
    await p.locator('#map .map-cell[data-x="1"][data-series="1"]').click();
    assert.equal(await hash(), '#x=1&series=1&variant=b');
    await p.click('#card-a');
    assert.equal(await hash(), '#x=1&series=1&variant=a');
    await p.focus('#slider-x');
    await p.keyboard.press('End');
    assert.equal(await hash(), '#x=2&series=1&variant=a');
    assert.equal(await p.evaluate(() => history.length), entries, 'replaced, not pushed');
    // An address edited by hand is followed; what it names wrongly is ignored.
    await p.evaluate(() => { location.hash = '#x=0.5&series=9&variant=nobody'; });
    await p.waitForFunction(() => location.hash === '#x=0.5&series=1&variant=a');
    assert.deepEqual([+(await p.inputValue('#slider-x')), +(await p.inputValue('#slider-series'))], [0, 0]);
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

// Clicks the download button `format` under `box` on the main page; the
// file's name and bytes.
async function download(box, format) {
  const [dl] = await Promise.all([page.waitForEvent('download'),
    page.click(`${box} .downloads button[data-format="${format}"]`)]);
  return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
}

test('every chart and the timeline download as PNG and SVG, every table as CSV with numbers in its cells and units in its head', async () => {
  assert.equal(await page.locator('.downloads button[data-format="png"]').count(),
    await page.locator('canvas').count() + 1); // and the timeline
  assert.equal(await page.locator('.downloads button[data-format="csv"]').count(),
    await page.locator('table.data').count());
  // Named by what they do, with the visible text in the name.
  assert.equal(await page.locator('#latency-panel .downloads button[data-format="svg"]').textContent(),
    'Download the latency chart as SVG');
  await page.locator('#map .map-cell[data-x="1"][data-series="2"]').click();
  const png = await download('#latency-panel', 'png');
  assert.equal(png.name, `${data.study.name}-latency-chart.png`);
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.bytes.length > 5000, `a PNG of ${png.bytes.length} bytes`);
  const svg = (await download('#latency-panel', 'svg')).bytes.toString('utf8');
  assert.match(svg, /^<\?xml[^>]*>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((svg.match(/<polyline /g) || []).length, 2, 'one line per compared design');
  assert.ok(svg.includes('end-to-end median (µs)') && svg.includes('one-way PCIe latency L (µs)'), 'axis titles');
  assert.ok(svg.includes('Design A') && svg.includes('Design B'), 'the legend');

  // The latency table at 2x: numbers as make_db wrote them.
  const csv = (await download('#latency-panel', 'csv')).bytes.toString('utf8').trimEnd().split('\r\n')
    .map((l) => l.split(','));
  assert.deepEqual(csv[0], ['pcie.latency_us', 'extra_run', 'a.median_us', 'b.median_us', 'faster', 'margin_us',
    'margin_pct']);
  const grid = csv.slice(1).filter((r) => r[1] === 'false');
  assert.deepEqual(grid.map((r) => [+r[0], +r[2], +r[3]]), fx.manifest.latencies_us.map((L) =>
    [L, gridRun(fx.manifest, 'a', L, 2).median_us, gridRun(fx.manifest, 'b', L, 2).median_us]));
  await page.$eval('#runs-panel details', (d) => { d.open = true; });
  const runs = (await download('#runs-panel', 'csv')).bytes.toString('utf8').trimEnd().split('\r\n');
  assert.equal(runs[0], 'run,status,design,pcie.latency_us,speed_x,inflight,requests,verified,median_us,p99_us,' +
    'throughput_rps,wall_s,error');
  assert.equal(runs.length - 1, data.runs.length);
  const first = gridRun(fx.manifest, 'a', 0.5, 1);
  const row = runs.find((l) => l.startsWith(`${first.run_id},`)).split(',');
  assert.deepEqual([row[2], +row[3], +row[4], +row[8]], ['a', 0.5, 1, first.median_us]);
  await page.$eval('#runs-panel details', (d) => { d.open = false; });
  // The traced request's timeline, as drawn, in SVG and PNG.
  await page.locator('#map .map-cell[data-x="1"][data-series="1"]').click();
  await page.click('#card-a');
  const traced = gridRun(fx.manifest, 'a', 1, 1).run_id;
  assert.equal(await timelineSettles(page, traced), 'drawn');
  const tsvg = await download('#timeline-tools', 'svg');
  assert.equal(tsvg.name, `${data.study.name}-timeline-${traced}.svg`);
  const ttext = tsvg.bytes.toString('utf8');
  assert.match(ttext, /<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((ttext.match(/<g class="lane"/g) || []).length, writtenTrace(traced).tracks.length);
  assert.match(ttext, /class="lane-label" style="fill:/, 'the page\'s style written onto it');
  const tpng = await download('#timeline-tools', 'png');
  assert.deepEqual([...tpng.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  for (const format of ['perfetto', 'otlp']) { // the report's files beside the page
    const t = await download('#timeline-tools', format);
    assert.equal(t.name, `${traced}.${format}.json.gz`);
    assert.ok(t.bytes.equals(readFileSync(join(reportDir, 'traces', t.name))), format);
  }
  await page.locator('#map .map-cell[data-x="0.5"][data-series="1"]').click();
  assert.deepEqual(problems, []);
});

test('a run without a trace says so instead of a timeline', async () => {
  const untraced = fx.manifest.grid.find((g) => !g.traced);
  await page.locator(`#map .map-cell[data-x="${untraced.pcie_latency_us}"][data-series="${untraced.speed}"]`).click();
  await page.click(`#card-${untraced.design}`);
  assert.equal(await timelineSettles(page, untraced.run_id), 'empty');
  assert.match(await page.textContent('#timeline-empty'), /^No trace recorded for this run/);
  assert.equal(await page.locator('#timeline svg').count(), 0);
  // The cards know it from the page's summary, before any trace loads.
  const other = untraced.design === 'a' ? 'b' : 'a';
  assert.match(await page.textContent(`#card-${untraced.design} .run-line`), /no trace recorded$/);
  assert.match(await page.textContent(`#card-${other} .run-line`), /click to show its trace$/);
  assert.deepEqual(problems, []);
});

test('a trace script that is not beside the page gives a message instead of a timeline', async () => {
  // The page alone, without its traces/ folder.
  const lonely = join(fx.dir, 'lonely');
  mkdirSync(lonely, { recursive: true });
  copyFileSync(join(reportDir, 'index.html'), join(lonely, 'index.html'));
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const exceptions = [];
  p.on('pageerror', (e) => exceptions.push(e.message));
  try {
    await p.goto(pathToFileURL(join(lonely, 'index.html')).href);
    await p.waitForSelector('body[data-ready="true"]');
    const want = gridRun(fx.manifest, 'a', 0.5, 1); // where the page opens
    assert.equal(await timelineSettles(p, want.run_id), 'error');
    assert.match(await p.textContent('#timeline-empty'),
      new RegExp(`^Could not load the trace of run #${want.run_id} from traces/${want.run_id}\\.js: ` +
        'the page needs the traces/ folder'));
    assert.ok(await p.isVisible('#timeline-empty'));
    assert.ok(await p.isHidden('#timeline-tools'));
    assert.equal(await p.locator('#timeline svg').count(), 0);
    assert.deepEqual(exceptions, []);
  } finally {
    await p.close();
  }
});

test('over `mortar serve` the page loads a trace from /traces/<id>.js when it shows it, once', async () => {
  const { proc, base, out } = await startServe(['--db', fx.db, '--port', '0']);
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  p.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  p.on('pageerror', (e) => errors.push(`exception: ${e.message}`));
  try {
    // Hold the traces back until the page has said it is loading one; one
    // trace the server is made to refuse.
    const asked = [];
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const refused = gridRun(fx.manifest, 'a', 2, 1);
    await p.route('**/traces/*', async (route) => {
      const path = new URL(route.request().url()).pathname;
      asked.push(path);
      await held;
      if (path === `/traces/${refused.run_id}.js`) await route.fulfill({ status: 404, body: 'no\n' });
      else await route.continue();
    });
    // Not until "load": the held trace script delays that event.
    await p.goto(base + '/', { timeout: 120000, waitUntil: 'domcontentloaded' });
    await p.waitForSelector('body[data-ready="true"]');
    const a = gridRun(fx.manifest, 'a', 0.5, 1), b = gridRun(fx.manifest, 'b', 0.5, 1);
    assert.equal(await p.getAttribute('#timeline', 'data-state'), 'loading');
    assert.equal(+(await p.getAttribute('#timeline', 'data-run-id')), a.run_id);
    assert.match(await p.textContent('#timeline-empty'), /^Loading the trace…/);
    release();
    assert.equal(await timelineSettles(p, a.run_id), 'drawn');
    assert.equal(await p.locator('#timeline .lane').count(), writtenTrace(a.run_id).tracks.length);

    await p.click('#card-b');
    assert.equal(await timelineSettles(p, b.run_id), 'drawn');
    // Back to A: drawn from what was loaded, not asked for again.
    await p.click('#card-a');
    assert.equal(await timelineSettles(p, a.run_id), 'drawn');
    assert.deepEqual(asked, [`/traces/${a.run_id}.js`, `/traces/${b.run_id}.js`]);
    assert.deepEqual(errors, []);

    await p.locator('#map .map-cell[data-x="2"][data-series="1"]').click();
    assert.equal(await timelineSettles(p, refused.run_id), 'error');
    assert.match(await p.textContent('#timeline-empty'), /: the server did not send it/);
  } finally {
    await p.close();
    proc.kill('SIGINT');
  }
  assert.equal(await exited(proc), 0, out.stderr);
});

test('the charts and tables hold the database numbers', async () => {
  // The latency chart follows the selected speed.
  await page.locator('#map .map-cell[data-x="1"][data-series="2"]').click();
  const series = await page.evaluate(() => window.Chart.getChart('latency-chart').data.datasets
    .map((d) => ({ label: d.label, points: d.data.map((p) => [p.x, p.y]) })));
  for (const [i, d] of [[0, 'a'], [1, 'b']]) {
    assert.deepEqual(series[i].points, fx.manifest.latencies_us.map((L) => [L, gridRun(fx.manifest, d, L, 2).median_us]));
  }
  if (data.verdict) {
    const cross = data.verdict.crossovers.find((c) => c.series === 2);
    assert.equal(await page.textContent('#crossover-text'), cross.text);
    if (cross.x !== null) assert.match(series[2].label, /^crossover at L ≈ [\d.]+ µs$/);
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

test("a refinement's extra runs are on the latency chart and in its table, and the crossing says it was measured", async () => {
  await page.locator('#map .map-cell[data-x="1"][data-series="1"]').click();
  const extra = fx.manifest.extra;
  const byX = (d) => [...fx.manifest.latencies_us.map((L) => [L, gridRun(fx.manifest, d, L, 1).median_us, false]),
    ...extra.filter((e) => e.design === d).map((e) => [e.pcie_latency_us, e.median_us, true])]
    .sort((p, q) => p[0] - q[0]);
  // The curves hold the grid's and the extra runs' medians in x order, the
  // extra ones drawn smaller, as diamonds.
  const drawn = await page.evaluate(() => {
    const chart = window.Chart.getChart('latency-chart');
    return chart.data.datasets.map((d, i) => ({
      label: d.label,
      points: d.data.map((p, j) => {
        const el = chart.getDatasetMeta(i).data[j];
        return [p.x, p.y, !!p.extra, el.options.radius, el.options.pointStyle];
      }),
    }));
  });
  for (const [i, d] of [[0, 'a'], [1, 'b']]) {
    assert.deepEqual(drawn[i].points.map((p) => p.slice(0, 3)), byX(d), `design ${d}`);
    for (const p of drawn[i].points) {
      assert.equal(p[3], p[2] ? 2.5 : 4, `design ${d} at ${p[0]}: radius`);
      assert.equal(p[4], p[2] ? 'rectRot' : 'circle', `design ${d} at ${p[0]}: style`);
    }
  }
  const cross = data.verdict.crossovers.find((c) => c.series === 1);
  assert.equal(cross.measured, true);
  assert.equal(cross.from_x, 1);
  assert.equal(cross.to_x, 1.03125);
  assert.equal(cross.crossings[0].how, 'measured between runs at 1 and 1.03125 µs');
  assert.equal(drawn[2].label, `crossover at L ≈ 1.01 µs, ${cross.crossings[0].how}`);
  assert.equal(await page.textContent('#crossover-text'), cross.text);
  assert.match(cross.text, /\(measured between runs at 1 and 1\.03125 µs\)\.$/);
  // The table: every x of both, the extra rows marked and said so.
  const rows = await page.locator('#latency-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [+tr.dataset.x, tr.dataset.extra, tr.cells[0].textContent, tr.classList.contains('extra')]));
  assert.deepEqual(rows.map((r) => r[0]), byX('a').map((p) => p[0]));
  for (const r of rows) {
    const isExtra = extra.some((e) => e.pcie_latency_us === r[0]);
    assert.equal(r[1], String(isExtra));
    assert.equal(r[3], isExtra);
    if (isExtra) assert.match(r[2], / µs \(extra run\)$/);
  }
  assert.match(await page.textContent('#latency-caption'), /the small diamonds are extra runs at 3 values between the grid's, where the ranking changes/);
  // The verdict's table of crossings says how each was found, in the verdict's words.
  const row = page.locator('#crossovers tbody tr[data-series="1"]');
  assert.equal(await row.getAttribute('data-measured'), 'true');
  assert.ok((await row.textContent()).includes(cross.crossings[0].how));
  const est = page.locator('#crossovers tbody tr[data-series="2"]');
  assert.equal(await est.getAttribute('data-measured'), 'false');
  assert.match(await est.textContent(), /estimated on a straight line between the runs at 0\.5 and 1 µs/);
  // Its sentences wrap inside the table's column instead of running under the next one.
  assert.ok(await page.evaluate(() => {
    const t = document.getElementById('crossovers');
    return t.getBoundingClientRect().right <= t.parentElement.getBoundingClientRect().right + 1;
  }), 'the crossings table overflows its column');
  // The extra runs are no grid: no slider stop, no map cell, no baselines row.
  assert.deepEqual(data.verdict.x_values, fx.manifest.latencies_us);
  assert.equal(await page.locator('#map .map-cell[data-x="1.25"]').count(), 0);
  assert.equal(await page.locator('#baselines tbody tr').count(), fx.manifest.latencies_us.length);
  assert.deepEqual(problems, []);
});

test('a database without runs gives a page that says so', async () => {
  const empty = join(fx.dir, 'empty.db');
  assert.equal(run(MAKE_DB, ['--empty', empty]).code, 0);
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

test('a study with one knob gives a page with one series and no series slider', async () => {
  const specs = join(need('WEB_PACKAGES'), '..', 'studies', 'matmul', 'experiments');
  const studyPath = join(fx.dir, 'one-knob.json');
  writeFileSync(studyPath, JSON.stringify({
    name: 'one',
    variants: { axis: 'design', compare: ['a', 'b'], values: {
      a: { spec: join(specs, 'design-a.json'), label: 'A' },
      b: { spec: join(specs, 'design-b.json'), label: 'B' } } },
    knobs: { 'pcie.latency': { label: 'L', unit: 'us', values: ['0.5us', '1us', '2us'] } },
    metric: { name: 'latency', unit: 'ns', better: 'lower',
      report: { id: 'req', value: 'latency_ns', start: 'start_ns', verified: 'verified' } },
    parts: [{ variants: ['a', 'b'], grid: { 'pcie.latency': ['0.5us'] } }],
  }));
  const r = run(MORTAR, ['report', '--db', fx.db, '--study', studyPath, '--out', join(fx.dir, 'one-knob')]);
  assert.equal(r.code, 0, r.stderr);
  const one = pageData(readFileSync(r.stdout.trim(), 'utf8'));
  assert.equal(one.study.series, null);
  assert.deepEqual(one.verdict.series_values, [null]);
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  p.on('pageerror', (e) => errors.push(e.message));
  try {
    await p.goto(pathToFileURL(r.stdout.trim()).href);
    await p.waitForSelector('body[data-ready="true"]');
    assert.ok(await p.isHidden('#series-slider'));
    assert.equal(await p.locator('#map .map-cell').count(), one.verdict.x_values.length);
    assert.equal(await p.locator('#crossovers tbody tr').count(), 1);
    assert.ok(await p.isHidden('#load-panel'));
    assert.equal(await p.textContent('#map .corner'), 'L →');
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

test("the split's parts are the study's: its names, labels and order, as the report computed them", async () => {
  // The case study's file with three parts of its own instead of its six.
  const specs = join(need('WEB_PACKAGES'), '..', 'studies', 'matmul', 'experiments');
  const st = JSON.parse(readFileSync(join(specs, 'study.json'), 'utf8'));
  for (const v of Object.values(st.variants.values)) v.spec = join(specs, v.spec);
  st.metric.split = [
    { name: 'hosts', label: "the hosts' software", takes: ['client_software', 'server_software'] },
    { name: 'io', label: 'getting there', takes: ['network', 'host_interface', 'pcie_wire'] },
    { name: 'device', label: 'the device at work', takes: ['compute'] }];
  delete st.refine;
  const studyPath = join(fx.dir, 'three-parts.json');
  writeFileSync(studyPath, JSON.stringify(st));
  const r = run(MORTAR, ['report', '--db', fx.db, '--study', studyPath, '--out', join(fx.dir, 'three-parts')]);
  assert.equal(r.code, 0, r.stderr);
  const three = pageData(readFileSync(r.stdout.trim(), 'utf8'));
  const g = fx.manifest.grid.find((x) => x.traced && x.design === 'a');
  const t = three.traces[String(g.run_id)];
  assert.deepEqual(t.split.parts.map((q) => [q.part, q.label]),
    [['hosts', "the hosts' software"], ['io', 'getting there'], ['device', 'the device at work']]);
  assert.equal(t.split.parts.reduce((n, q) => n + q.ps, 0), t.latency_ps);
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  p.on('pageerror', (e) => errors.push(e.message));
  try {
    await p.goto(pathToFileURL(r.stdout.trim()).href);
    await p.waitForSelector('body[data-ready="true"]');
    await p.locator(`#map .map-cell[data-x="${g.pcie_latency_us}"][data-series="${g.speed}"]`).click();
    const items = p.locator('#card-a .bar-legend li');
    assert.equal(await items.count(), 3);
    for (let i = 0; i < 3; i++) {
      const want = t.split.parts[i];
      assert.equal(await items.nth(i).getAttribute('data-part'), want.part);
      assert.equal(+(await items.nth(i).getAttribute('data-ps')), want.ps);
      assert.equal(await items.nth(i).locator('.part-label').textContent(), want.label);
    }
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

for (const width of [1280, 390]) {
  test(`at ${width} px: no console error, no sideways scroll, no serious or critical axe violation`, async () => {
    const { p, problems: found } = await openAt(width);
    try {
      const wide = await overflow(p);
      const violations = await axeViolations(p);
      const counts = Object.fromEntries(['critical', 'serious', 'moderate', 'minor'].map((i) =>
        [i, violations.filter((v) => v.impact === i).reduce((t, v) => t + v.nodes, 0)]));
      console.log(`axe at ${width} px: ${JSON.stringify(counts)} ${JSON.stringify(violations.map((v) => `${v.id} x${v.nodes}`))}`);
      assert.deepEqual(wide, [], `at ${width} px`);
      // The timeline is drawn as wide as its box, not wider.
      assert.ok(await p.evaluate(() => {
        const box = document.getElementById('timeline');
        return box.querySelector('svg').getBoundingClientRect().width <= box.clientWidth;
      }), `the timeline is wider than its box at ${width} px`);
      const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad, [], `axe at ${width} px:\n` + bad.map((v) =>
        `  ${v.impact} ${v.id} x${v.nodes}: ${v.targets.join(', ')}`).join('\n'));
      if (width < 500) {
        const dir = need('WEB_SCREENSHOT_DIR');
        mkdirSync(dir, { recursive: true });
        await p.screenshot({ path: join(dir, `explorer-${width}.png`), fullPage: true });
      }
      assert.deepEqual(found, []);
    } finally {
      await p.close();
    }
  });
}

test('a screenshot of the page is left in Testing/explorer.png', async () => {
  await page.locator('#map .map-cell[data-x="1"][data-series="1"]').click();
  await page.click('#card-a');
  assert.equal(await timelineSettles(page, gridRun(fx.manifest, 'a', 1, 1).run_id), 'drawn');
  const dir = need('WEB_SCREENSHOT_DIR');
  mkdirSync(dir, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(dir, 'explorer.png'), fullPage: true });
  assert.ok(existsSync(join(dir, 'explorer.png')));
  assert.deepEqual(problems, []);
});
