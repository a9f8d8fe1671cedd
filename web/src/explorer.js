// explorer.js - the explorer page's behaviour. It reads the data that
// `mortar report` embedded in #mortar-data (docs/explorer.md) and draws, from
// it alone: the verdict, the sliders and the map over the measured grid, a
// card per compared variant, the timeline of a traced request, and the
// charts. Every name, label and unit it shows comes from the study in the
// data (data.study: the variants, the knobs and their roles, the load axis,
// the metric's parts); the page itself names no study. The
// data holds only a summary of each traced request; the timeline itself is
// a script beside the page (traces/<run id>.js) loaded when it is first
// shown. Winners, margins and crossovers are the verdict's (cli/study/verdict.c);
// this script never decides one.
'use strict';

(function explorer() {
  // The two compared variants' colours (first blue, second orange), then the
  // baselines'. `ink` is the shade for text on white, with at least 4.5:1
  // contrast (WCAG AA).
  const PAIR_COLORS = [{ color: '#2563eb', soft: '#93c5fd', ink: '#1d4ed8' },
    { color: '#ea580c', soft: '#fdba74', ink: '#c2410c' }];
  const BASELINE_COLORS = ['#059669', '#7c3aed', '#db2777', '#0891b2', '#ca8a04'];
  const COLOR = { tie: '#64748b', none: '#94a3b8' };
  const EVENT_PALETTE = ['#2563eb', '#ea580c', '#059669', '#7c3aed', '#db2777', '#0891b2',
    '#ca8a04', '#4f46e5', '#65a30d', '#dc2626', '#0d9488', '#9333ea'];

  // ---------------------------------------------------------------- helpers

  const $ = (id) => document.getElementById(id);

  // el('div', {class: 'x', text: 'y', data: {k: v}, title, ...attrs}, ...children)
  function el(tag, attrs, ...children) {
    const svg = tag.startsWith('svg:');
    const node = svg
      ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
      : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') node.textContent = v;
      else if (k === 'data') for (const [dk, dv] of Object.entries(v)) node.dataset[dk] = dv;
      else if (k === 'on') for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else node.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const num = (v) => (isNum(v) ? v : null);
  const key = (...parts) => parts.map((p) => String(p)).join('|');

  // Grid values as given (0.5, 1, 2.5), without float noise.
  const trim = (v) => String(+Number(v).toFixed(4));

  function fmtNumber(v, digits) {
    return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  // Microseconds: one decimal, two below 10 µs.
  function fmtUs(v) {
    if (!isNum(v)) return '—';
    return fmtNumber(v, Math.abs(v) < 10 ? 2 : 1) + ' µs';
  }
  const fmtPct = (v) => (isNum(v) ? fmtNumber(Math.abs(v), 1) + ' %' : '—');
  const fmtRps = (v) => (isNum(v) ? fmtNumber(v, v < 100 ? 1 : 0) + ' req/s' : '—');
  const cap = (t) => (t ? t.charAt(0).toUpperCase() + t.slice(1) : '');

  // ---------------------------------------------------------------- the study

  // The study the data describes (cli/study/study_json.h), with what the page
  // needs of it: the two compared variants (PAIR), the baselines, the knob
  // along which crossings are found (X), the one that makes the series (SK,
  // or null), the load axis (LK, or null), the metric's parts.
  let S = null, PAIR = [], BASELINES = [], X = null, SK = null, LK = null, PARTS = [];
  const VARIANTS = new Map();

  function knobOf(study, name) {
    return (Array.isArray(study.knobs) ? study.knobs : []).find((k) => k && k.name === name) || null;
  }

  function readStudy(data) {
    S = data.study && typeof data.study === 'object' ? data.study : {};
    for (const v of Array.isArray(S.variants) ? S.variants : []) VARIANTS.set(v.name, v);
    PAIR = Array.isArray(S.compare) ? S.compare.slice(0, 2) : [];
    BASELINES = Array.isArray(S.baselines) ? S.baselines : [];
    X = knobOf(S, S.x) || { name: '', label: 'x', unit: '', phrase: 'value', title: 'value' };
    SK = knobOf(S, S.series);
    LK = S.load && typeof S.load === 'object' ? S.load : null;
    PARTS = S.metric && Array.isArray(S.metric.parts) ? S.metric.parts : [];
  }

  // A knob's unit as the page writes it after a value: "0.5 µs", "2×".
  const UNIT_TEXT = { us: ' µs', x: '×' };
  function unitText(k) {
    const u = k && k.unit ? k.unit : '';
    return UNIT_TEXT[u] !== undefined ? UNIT_TEXT[u] : u.length > 1 ? ' ' + u : u;
  }
  // A knob's column in a CSV file: its name and unit, "pcie.latency_us".
  const knobCol = (k) => (k.unit ? `${k.name}_${k.unit}` : k.name);
  const fmtKnob = (k, v) => (isNum(v) ? trim(v) + unitText(k) : '—');
  const fmtX = (v) => fmtKnob(X, v);
  // A knob value exactly as measured (1.21875 µs), for the ends of a bracket.
  const fmtExact = (v) => (isNum(v) ? String(+v.toPrecision(10)) + unitText(X) : '—');
  // Whether x is one of the values the study's x knob declares (the grid);
  // any other x is an extra run between them (a refinement's).
  const sameValue = (p, q) => Math.abs(p - q) <= 1e-9 * Math.max(1, Math.abs(p));
  const onGrid = (x) => !Array.isArray(X.values) || X.values.some((v) => isNum(v) && sameValue(v, x));
  const fmtS = (v) => fmtKnob(SK, v);
  const fmtLoad = (v) => (isNum(v) ? trim(v) : '—');

  // How the page names a variant: a compared one by the axis and its label
  // ("Nic XL710"), any other by its phrase.
  function variantName(name) {
    if (name === 'tie') return 'tie';
    const v = VARIANTS.get(name);
    if (!v) return name || '—';
    return PAIR.includes(name) ? `${cap(S.axis)} ${v.label}` : cap(v.phrase);
  }
  const label = (name) => (VARIANTS.get(name) ? VARIANTS.get(name).label : name);
  const pairIndex = (name) => PAIR.indexOf(name);
  const isPair = (name) => pairIndex(name) >= 0;
  function variantColor(name, soft) {
    const i = pairIndex(name);
    if (i >= 0) return soft ? PAIR_COLORS[i].soft : PAIR_COLORS[i].color;
    const b = BASELINES.indexOf(name);
    return b >= 0 ? BASELINE_COLORS[b % BASELINE_COLORS.length] : COLOR.none;
  }

  function uniqueSorted(values) {
    return [...new Set(values.filter(isNum))].sort((x, y) => x - y);
  }

  // Fills `table` with a header row and `rows` ({cells, attrs}); `csv`
  // ({head, rows}: the same table's numbers as numbers, each column's unit
  // in its name) is what its CSV download writes.
  function setTable(table, header, rows, csv) {
    table.replaceChildren();
    table.csvData = csv || null;
    const box = table.closest('[id$="-box"]') || table;
    if (!rows.length) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    table.append(el('thead', null, el('tr', null, header.map((h) => el('th', { text: h })))));
    table.append(el('tbody', null, rows.map((r) =>
      el('tr', r.attrs || null, r.cells.map((c) =>
        c instanceof Node ? el('td', null, c) : el('td', { text: c })))))
    );
  }

  // ---------------------------------------------------------------- the data

  function loadData() {
    try {
      const d = JSON.parse($('mortar-data').textContent);
      return d && typeof d === 'object' ? d : null;
    } catch (e) {
      return null;
    }
  }

  // Whether a run is unloaded: at the load axis' lowest value, or without one.
  const unloaded = (r) => !LK || !isNum(r.load) || r.load === S.load_at;
  // Whether a run is at the series knob's reference value (always without one).
  const atSeries = (r) => !SK || r.series === S.series_at;
  const runCell = (r) => {
    const s = r.summary || {};
    const cell = { run_id: r.id, median_us: s.median_us, p99_us: s.p99_us, mean_us: s.mean_us,
      min_us: s.min_us, max_us: s.max_us, alone_us: null };
    for (const p of PARTS) cell[`${p.name}_us`] = null;
    return cell;
  };

  // The grid the page shows: the verdict's cells, or without a verdict the
  // newest finished unloaded run of each compared variant at each (x,
  // series) (the measured numbers only: no winner, no margin). Runs carry
  // their variant and knob values (x, series, load) from the data.
  function buildModel(data) {
    const runs = Array.isArray(data.runs) ? data.runs : [];
    const ok = runs.filter((r) => r.status === 'ok');
    const verdict = data.verdict && typeof data.verdict === 'object' ? data.verdict : null;
    const runsById = new Map(runs.map((r) => [r.id, r]));
    const seriesOk = (v) => (SK ? isNum(v) : v === null || v === undefined);

    let cells;
    if (verdict && Array.isArray(verdict.cells)) {
      cells = verdict.cells.filter((c) => isNum(c.x) && seriesOk(c.series));
    } else {
      // Runs come in id order: the newest of each grid point is the last.
      const grid = new Map();
      for (const r of ok) {
        if (isPair(r.variant) && unloaded(r) && isNum(r.x)) grid.set(key(r.variant, r.x, r.series), r);
      }
      const byCell = new Map();
      for (const r of grid.values()) {
        if (!onGrid(r.x)) continue;
        const k = key(r.x, r.series);
        if (!byCell.has(k)) {
          const cell = { x: r.x, series: SK ? r.series : null, winner: null, margin_us: null, margin_pct: null };
          for (const d of PAIR) cell[d] = null;
          byCell.set(k, cell);
        }
        byCell.get(k)[r.variant] = runCell(r);
      }
      cells = [...byCell.values()];
    }
    const xs = verdict && Array.isArray(verdict.x_values) && verdict.x_values.length
      ? uniqueSorted(verdict.x_values) : uniqueSorted(cells.map((c) => c.x));
    const series = !SK ? [null] : verdict && Array.isArray(verdict.series_values) && verdict.series_values.length
      ? uniqueSorted(verdict.series_values) : uniqueSorted(cells.map((c) => c.series));
    const cellMap = new Map(cells.map((c) => [key(+c.x, SK ? +c.series : null), c]));
    const extraCells = verdict && Array.isArray(verdict.extra_cells)
      ? verdict.extra_cells.filter((c) => isNum(c.x) && seriesOk(c.series)) : [];

    return { data, runs, ok, verdict, runsById, cells, cellMap, extraCells, xs, series,
      baselines: verdict && Array.isArray(verdict.baselines) ? verdict.baselines : baselinesFromRuns(ok),
      load: verdict && Array.isArray(verdict.load) ? verdict.load : loadFromRuns(ok) };
  }

  // Without a verdict: the newest unloaded run of each baseline per x value
  // beside the compared variants' at the series' reference value.
  function baselinesFromRuns(ok) {
    const shown = [...BASELINES, ...PAIR];
    const pick = new Map();
    for (const r of ok) {
      if (unloaded(r) && atSeries(r) && shown.includes(r.variant) && isNum(r.x))
        pick.set(key(r.variant, r.x), r);
    }
    const med = (d, x) => {
      const r = pick.get(key(d, x));
      return r && r.summary ? num(r.summary.median_us) : null;
    };
    const xs = uniqueSorted(ok.filter((r) => BASELINES.includes(r.variant) && unloaded(r) && atSeries(r))
      .map((r) => r.x));
    return xs.map((x) => {
      const row = { x };
      for (const d of shown) row[`${d}_median_us`] = med(d, x);
      return row;
    });
  }

  // Without a verdict: every compared variant's x value with loaded runs,
  // with its unloaded run, at the series value those runs used.
  function loadFromRuns(ok) {
    if (!LK) return [];
    const multi = ok.filter((r) => isPair(r.variant) && !unloaded(r));
    const groups = new Set(multi.map((r) => key(r.variant, r.x, r.series)));
    const pick = new Map();
    for (const r of ok) {
      if (groups.has(key(r.variant, r.x, r.series)))
        pick.set(key(r.variant, r.x, r.series, r.load), r);
    }
    return [...pick.values()].map((r) => ({ variant: r.variant, x: r.x,
      load: isNum(r.load) ? r.load : S.load_at, median_us: (r.summary || {}).median_us,
      p99_us: (r.summary || {}).p99_us, throughput_rps: (r.summary || {}).throughput_rps, share: null }));
  }

  // ---------------------------------------------------------------- state

  const state = { xi: 0, si: 0, variant: '', zoom: null, full: null, timelineOf: '' };
  let M = null;

  const currentX = () => M.xs[state.xi];
  const currentS = () => M.series[state.si];
  const cellAt = (x, s) => M.cellMap.get(key(+x, SK ? +s : null)) || null;
  const currentCell = () => cellAt(currentX(), currentS());

  function select(xi, si) {
    state.xi = Math.max(0, Math.min(M.xs.length - 1, xi));
    state.si = Math.max(0, Math.min(M.series.length - 1, si));
    $('slider-x').value = String(state.xi);
    $('slider-series').value = String(state.si);
    // What a screen reader says for each slider: the value with its unit.
    $('slider-x').setAttribute('aria-valuetext', fmtX(currentX()));
    if (SK) $('slider-series').setAttribute('aria-valuetext', fmtS(currentS()));
    renderSelection();
    writeLink();
  }

  function selectVariant(d) {
    state.variant = d;
    renderCards();
    renderTimeline();
    writeLink();
  }

  // ---------------------------------------------------------------- the link

  // The selection in the page's address, so that a link opens the same
  // view: #x=<x value>&series=<series value>&variant=<name> (series only
  // with a series knob), values in the knobs' units. Replaced, not pushed:
  // moving a slider adds no history entry.
  function writeLink() {
    const p = new URLSearchParams();
    p.set('x', trim(currentX()));
    if (SK) p.set('series', trim(currentS()));
    p.set('variant', state.variant);
    const hash = '#' + p.toString();
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  // The selection a link asks for, as far as the page has it: {xi, si,
  // variant}, each null when absent or not one of the grid's.
  function readLink() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ''));
    const index = (values, text) => {
      if (text === null || text.trim() === '' || !isNum(+text)) return null;
      const i = values.findIndex((v) => isNum(v) && sameValue(v, +text));
      return i >= 0 ? i : null;
    };
    return { xi: index(M.xs, p.get('x')), si: SK ? index(M.series, p.get('series')) : null,
      variant: isPair(p.get('variant')) ? p.get('variant') : null };
  }

  // Opens the view the address names; what it does not name (or names
  // wrongly) stays as it is.
  function followLink() {
    const want = readLink();
    if (want.variant) state.variant = want.variant;
    select(want.xi !== null ? want.xi : state.xi, want.si !== null ? want.si : state.si);
  }

  // "<x label> = <value>, <series label> <value>": where a cell is.
  function where(x, s) {
    return `${X.label} = ${fmtX(x)}` + (SK ? `, ${SK.label} ${fmtS(s)}` : '');
  }

  function renderSelection() {
    $('x-value').textContent = fmtX(currentX());
    $('series-value').textContent = SK ? fmtS(currentS()) : '';
    const explore = $('explore');
    explore.dataset.x = String(currentX());
    explore.dataset.series = String(currentS());
    const cell = currentCell();
    const sel = $('selection');
    if (!cell) sel.textContent = `Neither ${S.axis} was measured at this setting.`;
    else if (isPair(cell.winner))
      sel.textContent = `${variantName(cell.winner)} is faster here, by ${fmtUs(isNum(cell.margin_us) ? Math.abs(cell.margin_us) : null)} (${fmtPct(cell.margin_pct)}) end to end.`;
    else if (cell.winner === 'tie') sel.textContent = `${label(PAIR[0])} and ${label(PAIR[1])} are tied here.`;
    else sel.textContent = M.verdict ? `No winner here: a ${S.axis} is missing.` : 'Who wins needs the verdict (see above).';
    renderMapSelection();
    renderCards();
    renderTimeline();
    renderLatencyChart();
  }

  // ---------------------------------------------------------------- header, verdict

  // The texts of the page that name the study's variants and knobs.
  function renderStudyTexts() {
    const [a, b] = PAIR.map(label);
    document.title = `mortar explorer: ${S.axis} ${a} vs ${S.axis} ${b} in the whole system`;
    $('study-name').textContent = S.name ? `${S.name} study` : '';
    $('question').textContent = `${variantName(PAIR[0])} and ${S.axis} ${b}, alone and inside ` +
      'the whole simulated system: which is faster where, and where does the ranking flip?';
    $('movement-title').textContent = `How far each ${S.axis} moves across the ${X.phrase} range`;
    $('explore-hint').textContent = `Pick a ${X.title}${SK ? ` and a ${SK.title}` : ''} with the sliders, or click a ` +
      `cell of the map. The cards compare the two ${S.axis}s measured there.`;
    $('x-label').textContent = cap(X.title) + ' ';
    $('series-label').textContent = SK ? cap(SK.title) + ' ' : '';
    $('series-slider').hidden = !SK;
    $('map-unit').textContent = `(end-to-end median; x: ${X.title}${SK ? `, y: ${SK.title}` : ''})`;
    $('latency-title').textContent = `Latency vs ${X.title}`;
    const baselineNames = BASELINES.map((d) => variantName(d));
    $('baselines-hint').textContent = `${baselineNames.join(', ')}${baselineNames.length ? ' against ' : ''}${a} and ${b}` +
      (SK ? ` at ${fmtS(S.series_at)} ${SK.phrase}` : '') + '. Log scale.';
    $('load-hint').textContent = LK ? `Several ${LK.phrase}: how many requests per second each ${S.axis} ` +
      'completes, and what that does to each request\'s latency.' : '';
  }

  function renderHeader() {
    const d = M.data;
    $('meta').replaceChildren(
      `${M.runs.length} run${M.runs.length === 1 ? '' : 's'} (${M.ok.length} finished ok) from `,
      el('code', { text: d.database || '?' }),
      `, built ${d.generated_at || '?'} by ${d.generator || 'mortar'}.`);
    $('footer').textContent = 'Every number on this page is read from the runs in the database ' +
      '(mortar report / mortar serve); docs/explorer.md says where each one comes from.';
  }

  // The answer first (data.answer, cli/study/verdict_answer.h): its sentence
  // and its figures, each as the report worded them (title, value, what the
  // value says, detail); the page only lays them out.
  function renderAnswer() {
    const ans = M.data.answer && typeof M.data.answer === 'object' ? M.data.answer : null;
    const text = ans && typeof ans.text === 'string' ? ans.text : '';
    $('answer').hidden = !text;
    if (!text) return;
    $('answer-text').textContent = text;
    const words = (v) => (typeof v === 'string' ? v : '');
    $('answer-figures').replaceChildren(...(Array.isArray(ans.figures) ? ans.figures : [])
      .filter((f) => f && typeof f === 'object')
      .map((f) => el('div', { class: 'figure', data: { figure: words(f.figure) } },
        el('h3', { text: words(f.title) }), el('p', { class: 'figure-value', text: words(f.value) }),
        el('p', { class: 'figure-what', text: words(f.what) }),
        el('p', { class: 'figure-detail', text: words(f.detail) }))));
  }

  // The narrated walkthrough beside the page (mortar report --video names
  // it in data.walkthrough): muted until the viewer turns the sound on; a
  // file that does not load leaves the panel hidden.
  function renderWalkthrough() {
    const w = M.data.walkthrough;
    if (!w || typeof w.video !== 'string') return;
    const video = $('walkthrough');
    video.muted = true;
    video.addEventListener('loadedmetadata', () => { $('walkthrough-panel').hidden = false; });
    video.addEventListener('error', () => { $('walkthrough-panel').hidden = true; });
    video.src = w.video;
  }

  function renderVerdict() {
    const v = M.verdict;
    const err = $('verdict-error');
    const empty = v && (!Array.isArray(v.cells) || !v.cells.length);
    err.hidden = !!v && !empty;
    if (!v) {
      err.textContent = `No verdict: ${M.data.verdict_error || 'unknown reason'}. ` +
        'The cards and charts show the measured runs; winners, margins and crossovers come from the verdict.';
    } else if (empty) {
      err.textContent = `Nothing to conclude yet: the database has no finished runs of ${S.axis} ${label(PAIR[0])} or ${label(PAIR[1])}.`;
    }
    const sentences = v && Array.isArray(v.summary) ? v.summary.filter((t) => typeof t === 'string') : [];
    $('verdict-headline').textContent = sentences.length ? sentences[0] : '';
    $('verdict-headline').hidden = !sentences.length;
    $('verdict-summary').replaceChildren(...sentences.slice(1).map((t) => el('li', { text: t })));
    $('verdict-sentences').hidden = sentences.length < 2;
    $('verdict-count').textContent = `(${sentences.length - 1} sentences)`;

    const [a, b] = PAIR.map(label);
    const seriesHead = SK ? [cap(SK.label)] : [];
    const seriesCell = (value) => (SK ? [fmtS(value)] : []);
    const seriesCol = SK ? [knobCol(SK)] : [];
    const cross = v && Array.isArray(v.crossovers) ? v.crossovers : [];
    const each = (c) => (Array.isArray(c.crossings) && c.crossings.length ? c.crossings : []);
    setTable($('crossovers'), [...seriesHead, `${a} and ${b} cross at`, 'How it was found', 'Faster below', 'Faster above'],
      cross.map((c) => ({
        attrs: { data: { series: String(c.series), measured: String(c.measured === true),
          crossings: String(each(c).length) }, title: c.text || '' },
        cells: [...seriesCell(c.series),
          each(c).length ? each(c).map((k) => `${X.label} ≈ ${fmtNumber(k.x, 2)}${unitText(X)}`).join(', ')
            : 'no crossing in the measured range',
          each(c).length ? each(c).map((k) => k.how || '—').join('; ') : '—',
          variantName(c.below), variantName(c.above)],
      })), {
      head: [...seriesCol, `crossing.${knobCol(X)}`, 'measured', `from.${knobCol(X)}`, `to.${knobCol(X)}`,
        'faster_below', 'faster_above'],
      rows: cross.flatMap((c) => (each(c).length ? each(c) : [{ below: c.below, above: c.above }]).map((k) =>
        [...(SK ? [c.series] : []), k.x, k.measured, k.from_x, k.to_x, k.below, k.above])),
    });

    // Alone (each variant's alone benchmark) beside who wins in the system,
    // per x value (the verdict's ranking; else its cells).
    const alone = v && Array.isArray(v.alone) ? v.alone : [];
    const ranking = v && Array.isArray(v.ranking) ? v.ranking : [];
    const inSystem = (series) => {
      const r = ranking.find((x) => x.series === series);
      const pairs = r && r.system_winners && typeof r.system_winners === 'object'
        ? Object.entries(r.system_winners).map(([x, w]) => [+x, w])
        : M.cells.filter((c) => c.series === series).map((c) => [c.x, c.winner]);
      const by = new Map([...PAIR, 'tie'].map((w) => [w, []]));
      for (const [x, w] of pairs.sort((p, q) => p[0] - q[0])) if (by.has(w)) by.get(w).push(trim(x));
      return [...by.entries()].filter(([, xs]) => xs.length)
        .map(([w, xs]) => `${w === 'tie' ? 'tie' : label(w)} at ${xs.join(', ')}${unitText(X)}`).join('; ') || '—';
    };
    setTable($('alone'), [...seriesHead, `${a} alone`, `${b} alone`, 'Faster alone', 'Faster in the system'],
      alone.map((row) => ({
        attrs: { data: { series: String(row.series) } },
        cells: [...seriesCell(row.series), fmtUs(row[`${PAIR[0]}_us`]), fmtUs(row[`${PAIR[1]}_us`]),
          variantName(row.winner), inSystem(row.series)],
      })), {
      head: [...seriesCol, `${PAIR[0]}.alone_us`, `${PAIR[1]}.alone_us`, 'faster_alone', 'faster_in_the_system'],
      rows: alone.map((row) => [...(SK ? [row.series] : []), row[`${PAIR[0]}_us`], row[`${PAIR[1]}_us`],
        row.winner, inSystem(row.series)]),
    });

    const moves = v && Array.isArray(v.movement) ? v.movement : [];
    setTable($('movement'), [cap(S.axis), ...seriesHead, cap(X.title), 'Median', 'Change'],
      moves.map((m) => ({
        cells: [variantName(m.variant), ...seriesCell(m.series),
          `${fmtX(m.from_x)} → ${fmtX(m.to_x)}`,
          `${fmtUs(m.from_median_us)} → ${fmtUs(m.to_median_us)}`,
          `${isNum(m.delta_us) && m.delta_us >= 0 ? '+' : ''}${fmtUs(m.delta_us)} (${isNum(m.delta_pct) && m.delta_pct < 0 ? '−' : '+'}${fmtPct(m.delta_pct)})`],
      })), {
      head: [S.axis, ...seriesCol, `from.${knobCol(X)}`, `to.${knobCol(X)}`, 'from.median_us', 'to.median_us',
        'change_us', 'change_pct'],
      rows: moves.map((m) => [m.variant, ...(SK ? [m.series] : []), m.from_x, m.to_x, m.from_median_us,
        m.to_median_us, m.delta_us, m.delta_pct]),
    });
  }

  // ---------------------------------------------------------------- sliders, map

  function renderControls() {
    const setup = (id, ticksId, values, fmt, onInput) => {
      const s = $(id);
      s.max = String(Math.max(0, values.length - 1));
      s.disabled = values.length < 2;
      s.addEventListener('input', () => onInput(+s.value));
      $(ticksId).replaceChildren(...values.map((v) => el('span', { text: fmt(v) })));
    };
    setup('slider-x', 'x-ticks', M.xs, fmtX, (i) => select(i, state.si));
    setup('slider-series', 'series-ticks', SK ? M.series : [], fmtS, (i) => select(state.xi, i));
  }

  function mapTint(cell) {
    const w = cell.winner;
    if (!isPair(w)) return w === 'tie' ? '#e2e8f0' : '#f1f5f9';
    const pct = isNum(cell.margin_pct) ? Math.abs(cell.margin_pct) : 0;
    const alpha = 0.16 + 0.64 * Math.min(1, pct / 25);
    const hex = variantColor(w);
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha.toFixed(3)})`;
  }

  function renderMap() {
    const map = $('map');
    map.style.setProperty('--columns', String(M.xs.length));
    const nodes = [];
    const [a, b] = PAIR;
    for (let si = M.series.length - 1; si >= 0; si--) {
      const s = M.series[si];
      nodes.push(el('div', { class: 'map-axis map-y', text: SK ? fmtS(s) : '' }));
      M.xs.forEach((x, xi) => {
        const cell = cellAt(x, s);
        if (!cell) {
          nodes.push(el('div', { class: 'map-cell missing', text: 'not run',
            data: { x: String(x), series: String(s), winner: 'none' } }));
          return;
        }
        const w = isPair(cell.winner) || cell.winner === 'tie' ? cell.winner : 'none';
        let main, sub;
        if (isPair(w)) {
          main = label(w);
          // Two lines, "by" for a screen reader only: they fit a phone's narrow column.
          sub = [el('span', { class: 'sr-only', text: 'by ' }),
            el('span', { class: 'map-line', text: fmtUs(isNum(cell.margin_us) ? Math.abs(cell.margin_us) : null) }),
            el('span', { class: 'sr-only', text: ', ' }), el('span', { class: 'map-line', text: fmtPct(cell.margin_pct) })];
        } else if (w === 'tie') {
          main = 'tie';
          sub = 'same median';
        } else {
          main = '?';
          sub = `${label(a)} ${fmtUs(cell[a] && cell[a].median_us)} · ${label(b)} ${fmtUs(cell[b] && cell[b].median_us)}`;
        }
        // A plain button whose name is its text: where it is (for a screen
        // reader only, the axes say it on screen), then what it shows.
        nodes.push(el('button', {
          type: 'button', class: `map-cell win-${w}`,
          style: `background:${mapTint(cell)}`,
          title: `${where(x, s)}: ${label(a)} ${fmtUs(cell[a] && cell[a].median_us)}, ${label(b)} ${fmtUs(cell[b] && cell[b].median_us)}`,
          data: { x: String(x), series: String(s), xi: String(xi), si: String(si), winner: w },
          on: { click: () => select(xi, si) },
        }, el('span', { class: 'sr-only', text: `${where(x, s)}: ` + (isPair(w) ? 'faster: ' : '') }),
        el('span', { class: 'map-main', text: main }), el('span', { class: 'sr-only', text: ', ' }),
        el('span', { class: 'map-sub' }, sub)));
      });
    }
    nodes.push(el('div', { class: 'map-axis corner', text: SK ? `${SK.label} ↑ / ${X.label} →` : `${X.label} →` }));
    for (const x of M.xs) nodes.push(el('div', { class: 'map-axis map-x', text: fmtX(x) }));
    map.replaceChildren(...nodes);

    const sw = (color, text) => el('span', { class: 'legend-item' },
      el('span', { class: 'swatch', style: `background:${color}` }), text);
    $('map-legend').replaceChildren(sw(variantColor(a), `${label(a)} faster`), sw(variantColor(b), `${label(b)} faster`),
      sw('#e2e8f0', 'tie'), el('span', { class: 'legend-note', text: 'stronger colour = larger margin' }));
  }

  function renderMapSelection() {
    for (const c of document.querySelectorAll('#map .map-cell')) {
      const on = +c.dataset.x === +currentX() && String(c.dataset.series) === String(currentS());
      c.classList.toggle('selected', on);
      c.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
  }

  // ---------------------------------------------------------------- cards

  function renderCards() {
    const cell = currentCell();
    for (const d of PAIR) {
      const card = $('card-' + d);
      const m = cell ? cell[d] : null;
      const win = !!cell && cell.winner === d;
      card.classList.toggle('winner', win);
      card.classList.toggle('selected', state.variant === d);
      card.dataset.winner = win ? 'true' : 'false';
      card.dataset.selected = state.variant === d ? 'true' : 'false';
      card.dataset.runId = m && m.run_id != null ? String(m.run_id) : '';
      card.style.setProperty('--design', variantColor(d));
      card.style.setProperty('--design-ink', PAIR_COLORS[pairIndex(d)].ink);

      let badge = null;
      if (cell && cell.winner === 'tie') badge = el('span', { class: 'badge tie', text: 'tie' });
      else if (win) badge = el('span', { class: 'badge win', text: `faster by ${fmtUs(Math.abs(num(cell.margin_us) || 0))} (${fmtPct(cell.margin_pct)})` });
      else if (cell && isPair(cell.winner))
        badge = el('span', { class: 'badge lose', text: `slower by ${fmtUs(Math.abs(num(cell.margin_us) || 0))}` });

      const v = VARIANTS.get(d);
      const nick = v && v.phrase !== v.label ? v.phrase : '';
      const head = el('header', null,
        el('h3', null, variantName(d), nick ? el('span', { class: 'nick', text: nick }) : null), badge);
      if (!m) {
        card.replaceChildren(head, el('p', { class: 'muted', text: 'Not measured at this setting.' }));
        continue;
      }
      const field = (name, text, help, big) => el('div', { class: big ? 'field big' : 'field' },
        el('dt', null, text, help ? el('small', { text: help }) : null),
        el('dd', { 'data-field': name, 'data-value': isNum(m[name]) ? String(m[name]) : '', text: fmtUs(m[name]) }));
      const run = M.runsById.get(m.run_id);
      const s = run && run.summary ? run.summary : {};
      const traced = hasTrace(traceSummary(m.run_id));
      card.replaceChildren(
        head,
        el('dl', { class: 'headline' },
          field('median_us', 'End-to-end median', null, true),
          field('p99_us', 'End-to-end p99', null, true)),
        breakdown(m, cell),
        el('dl', { class: 'fields' },
          field('alone_us', 'Alone', `the ${S.axis} by itself, no system`),
          PARTS.map((p) => field(`${p.name}_us`, p.label || p.name, p.description || null))),
        el('p', { class: 'run-line' },
          `run #${m.run_id}`, isNum(s.requests) ? ` · ${s.requests} requests, ${s.verified} verified` : '',
          ' · ', !traced ? 'no trace recorded'
            : state.variant === d ? 'trace shown below' : 'click to show its trace'));
    }
  }

  // Where the median request's time goes (docs/traces.md, "Where the time
  // goes"): the split in the run's traced request summary, in the study's
  // parts as the report computed them; null when the run was not traced or
  // its trace could not be split.
  function splitOf(m) {
    const t = m ? traceSummary(m.run_id) : null;
    const s = t ? t.split : null;
    const ok = s && typeof s === 'object' && isNum(s.latency_ps) && Array.isArray(s.parts) &&
      s.parts.length > 0 && s.parts.every((p) => p && typeof p.part === 'string' && isNum(p.ps));
    return ok ? s : null;
  }

  // The split as one stacked bar per card, on a scale shared by both cards
  // (the longer request fills the width), each part labelled with its µs.
  function breakdown(m, cell) {
    const split = splitOf(m);
    if (!split) {
      const t = m ? traceSummary(m.run_id) : null;
      const why = t && typeof t.split_error === 'string' ? `Not split: ${t.split_error}` :
        'Where the time goes: shown for a run recorded with --trace.';
      return el('p', { class: 'breakdown breakdown-none muted', text: why });
    }
    const longest = Math.max(...PAIR.map((d) => {
      const other = cell ? splitOf(cell[d]) : null;
      return other ? other.latency_ps : 0;
    }), split.latency_ps) || 1;
    const parts = split.parts.map((p, i) => ({ key: p.part, label: p.label || p.part, ps: p.ps, us: p.ps / 1e6,
      colour: `seg-${i % 6}` }));
    const segment = (p) => el('span', {
      class: `seg ${p.colour}`, data: { part: p.key, ps: String(p.ps) },
      style: `width:${(100 * p.ps / longest).toFixed(3)}%`, title: `${p.label}: ${fmtUs(p.us)}` });
    return el('div', { class: 'breakdown', data: { request: String(split.request), latencyPs: String(split.latency_ps) } },
      el('div', { class: 'breakdown-title' },
        `Where the median request's ${fmtUs(split.latency_ps / 1e6)} goes`,
        el('small', { text: ` request ${split.request} of the trace` })),
      el('div', { class: 'bar' }, parts.filter((p) => p.ps > 0).map(segment)),
      el('ul', { class: 'bar-legend' }, parts.map((p) =>
        el('li', { data: { part: p.key, ps: String(p.ps) } }, el('i', { class: p.colour }),
          el('span', { class: 'part-label', text: p.label }),
          el('span', { class: 'part-value', text: fmtUs(p.us) })))));
  }

  // ---------------------------------------------------------------- timeline

  function niceStep(span, count) {
    const raw = span / Math.max(1, count);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  }

  // Colours by what an event is (docs/traces.md): grey for the enclosing
  // request steps, green computing, blues DMA, red the CPU-stalling MMIO
  // reads, purples the doorbell path, teals and ambers the frames.
  const EVENT_COLORS = {
    request: '#475569', service: '#64748b', device: '#94a3b8',
    compute: '#16a34a', dma_read: '#2563eb', dma_write: '#0891b2',
    mmio_read: '#dc2626', mmio_write: '#f59e0b', doorbell: '#9333ea', desc_fetch: '#7c3aed',
    completion: '#db2777', interrupt: '#be123c', irq: '#be123c',
    tx_frame: '#0d9488', rx_frame: '#14b8a6', frame_rx: '#a16207', frame_tx: '#ca8a04',
    frame_drop: '#111827', error: '#991b1b', mark: '#6b7280',
  };

  function eventColor(name) {
    if (Object.prototype.hasOwnProperty.call(EVENT_COLORS, name)) return EVENT_COLORS[name];
    let h = 0;
    for (const ch of String(name)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return EVENT_PALETTE[h % EVENT_PALETTE.length];
  }

  // The summary of a run's traced request in the page's data (cli/explorer/report_data.h):
  // {request, start_ps, end_ps, latency_ps, events, file} or {error}.
  function traceSummary(runId) {
    const traces = M.data.traces && typeof M.data.traces === 'object' ? M.data.traces : {};
    const t = traces[String(runId)];
    return t && typeof t === 'object' ? t : null;
  }
  const hasTrace = (summary) => !!summary && typeof summary.file === 'string' &&
    isNum(summary.events) && summary.events > 0;

  // Timelines by run id, loaded on demand: {state: 'loading' | 'loaded' |
  // 'failed', file, timeline}. traces/<run id>.js calls mortarTrace(id,
  // timeline) (cli/explorer/report_page.h): a <script> element rather than fetch(),
  // which a page opened from disk (file://) may not use. A failure stays
  // until the page is reloaded.
  const timelines = new Map();

  window.mortarTrace = (id, timeline) => {
    const entry = timelines.get(String(id));
    if (!entry || entry.state !== 'loading' || !timeline || typeof timeline !== 'object') return;
    entry.state = 'loaded';
    entry.timeline = timeline;
  };

  function loadTimeline(runId, file) {
    const id = String(runId);
    if (timelines.has(id)) return timelines.get(id);
    const entry = { state: 'loading', file };
    timelines.set(id, entry);
    const done = () => {
      script.remove();
      if (entry.state === 'loading') entry.state = 'failed';
      // Draw it if it is still the one wanted.
      const m = currentCell() && currentCell()[state.variant];
      if (m && String(m.run_id) === id) renderTimeline();
    };
    const script = el('script', { src: file, on: { load: done, error: done } });
    document.head.append(script);
    return entry;
  }

  function renderTimeline() {
    const box = $('timeline');
    const empty = $('timeline-empty');
    const cell = currentCell();
    const d = state.variant;
    const m = cell ? cell[d] : null;
    $('timeline-caption').textContent = m
      ? `${variantName(d)} at ${X.title} ${fmtX(currentX())}${SK ? `, ${SK.title} ${fmtS(currentS())}` : ''}: ` +
        `the request with the median end-to-end latency of run #${m.run_id}, every event on the one simulated clock. ` +
        `Click the other card for the other ${S.axis}. Drag across the lanes to zoom in; the buttons, ` +
        'or + − and the arrow keys on the focused timeline, zoom and pan.'
      : 'Nothing measured at this setting.';
    const summary = m ? traceSummary(m.run_id) : null;
    const entry = hasTrace(summary) ? loadTimeline(m.run_id, summary.file) : null;
    const t = entry && entry.state === 'loaded' ? entry.timeline : null;
    const tracks = t && Array.isArray(t.tracks) ? t.tracks.filter((tr) => Array.isArray(tr.events)) : [];
    const shown = `${d}|${m ? m.run_id : ''}`;
    if (state.timelineOf !== shown) {
      state.timelineOf = shown;
      state.zoom = null;
    }
    box.dataset.variant = d;
    box.dataset.runId = m ? String(m.run_id) : '';
    $('timeline-tools').hidden = !tracks.length;
    const say = (boxState, text) => {
      box.replaceChildren();
      box.dataset.state = boxState;
      empty.hidden = false;
      empty.classList.toggle('quiet', boxState !== 'error');
      empty.textContent = text;
    };
    if (!m) return say('empty', 'No run at this setting.');
    if (entry && entry.state === 'loading') {
      return say('loading', `Loading the trace… (run #${m.run_id}, ` +
        `${fmtNumber(summary.events, 0)} events from ${entry.file})`);
    }
    if (entry && entry.state === 'failed') {
      const why = location.protocol === 'file:'
        ? 'the page needs the traces/ folder that `mortar report` writes beside it'
        : 'the server did not send it (the output of `mortar serve` says why)';
      return say('error', `Could not load the trace of run #${m.run_id} from ${entry.file}: ${why}. ` +
        'Reload the page to try again.');
    }
    if (!tracks.length) {
      const why = summary && summary.error ? summary.error : null;
      return say('empty', 'No trace recorded for this run' + (why ? ` (${why}).` : '.') +
        ' Runs made with `mortar run --trace` have one.');
    }
    empty.hidden = true;
    box.dataset.state = 'drawn';
    drawTimeline(box, t, tracks);
  }

  // The request's window, or the zoomed part of it, in ps.
  function timelineWindow(t, all) {
    let t0 = num(t.start_ps), t1 = num(t.end_ps);
    if (t0 === null) t0 = Math.min(...all.map((e) => e.start_ps).filter(isNum));
    if (t1 === null) t1 = Math.max(...all.map((e) => (isNum(e.end_ps) ? e.end_ps : e.start_ps)).filter(isNum));
    const full = [t0, Math.max(t1, t0 + 1)];
    state.full = full;
    return { full, view: state.zoom || full };
  }

  // Zoom and pan: the view becomes [v0, v1] (ps), kept inside the request's
  // window and at most 1000 times narrower; the whole window is no zoom.
  function setTimelineView(v0, v1) {
    const [f0, f1] = state.full;
    const w = Math.min(f1 - f0, Math.max(v1 - v0, (f1 - f0) / 1000));
    const a = Math.max(f0, Math.min(f1 - w, (v0 + v1) / 2 - w / 2));
    state.zoom = w >= f1 - f0 ? null : [a, a + w];
    renderTimeline();
  }
  // Zooms by `factor` (< 1 in) around the point `at` of the view (0 its start, 1 its end).
  function zoomTimeline(factor, at) {
    if (!state.full) return;
    const [v0, v1] = state.zoom || state.full;
    const c = v0 + at * (v1 - v0), w = (v1 - v0) * factor;
    setTimelineView(c - at * w, c - at * w + w);
  }
  // Pans by `share` of the view's width (< 0 earlier).
  function panTimeline(share) {
    if (!state.full) return;
    const [v0, v1] = state.zoom || state.full;
    const d = share * (v1 - v0);
    setTimelineView(v0 + d, v1 + d);
  }
  // The fingers on the timeline: each touch pointer's x (px from the
  // plot's left) and, while two are down, the instant (ps) each took hold
  // of. Kept outside the drawing, which a pinch redraws under the fingers.
  const fingers = { x: new Map(), held: null };
  // The view in which the two fingers are over the instants they took hold
  // of: spreading them zooms in, closing them zooms out, moving both pans.
  function pinchTimeline(plotW) {
    const [p, q] = [...fingers.x.values()], [a, b] = fingers.held;
    const perPx = (b - a) / (q - p);
    if (!(perPx > 0) || !Number.isFinite(perPx)) return;
    setTimelineView(a - p * perPx, a - p * perPx + plotW * perPx);
  }
  // The keys a focused timeline answers: zoom, pan, back to the whole request.
  const TIMELINE_KEYS = {
    '+': () => zoomTimeline(0.5, 0.5), '=': () => zoomTimeline(0.5, 0.5),
    '-': () => zoomTimeline(2, 0.5), ArrowLeft: () => panTimeline(-0.25),
    ArrowRight: () => panTimeline(0.25), '0': () => setTimelineView(...state.full),
    Home: () => setTimelineView(...state.full),
  };

  // Swim lanes, one per track; a track's overlapping events stack in rows.
  function drawTimeline(box, t, tracks) {
    const all = tracks.flatMap((tr) => tr.events);
    const { full, view } = timelineWindow(t, all);
    const [v0, v1] = view;
    // As wide as its box, whatever the screen: narrower lane labels on a phone.
    const W = Math.max(280, box.clientWidth || 960);
    const labelW = W < 600 ? 86 : 150, padR = W < 600 ? 8 : 16, rowH = 16, lanePad = 6, top = 6, axisH = 38, maxRows = 6;
    const plotW = W - labelW - padR;
    const labelChars = Math.floor((labelW - 10) / 7);
    const x = (ps) => labelW + ((ps - v0) / (v1 - v0)) * plotW;
    const clampX = (px) => Math.max(labelW, Math.min(labelW + plotW, px));

    // Pack each track's visible events into rows by their drawn extent.
    const layout = tracks.map((tr) => {
      const rowEnds = [];
      const placed = new Map();
      tr.events.forEach((e, pos) => {
        if (!isNum(e.start_ps)) return;
        const end = isNum(e.end_ps) ? e.end_ps : e.start_ps;
        if (end < v0 || e.start_ps > v1) return;
        const x0 = clampX(x(e.start_ps)), x1 = Math.max(x0 + 2, clampX(x(end)));
        let row = rowEnds.findIndex((r) => r <= x0);
        if (row < 0) row = rowEnds.length < maxRows ? rowEnds.length : maxRows - 1;
        rowEnds[row] = Math.max(rowEnds[row] || 0, x1 + 1);
        placed.set(pos, { e, end, x0, x1, row });
      });
      return { tr, placed, rows: Math.max(1, rowEnds.length) };
    });
    let y = top;
    for (const l of layout) {
      l.y = y;
      l.h = l.rows * rowH + 2 * lanePad;
      y += l.h;
    }
    const axisY = y;
    const H = axisY + axisH;

    const svg = el('svg:svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
      tabindex: 0, 'aria-label': `timeline of request ${t.request}: ${tracks.length} tracks, ` +
        `${fmtUs((v0 - full[0]) / 1e6)} to ${fmtUs((v1 - full[0]) / 1e6)}; + and − zoom, ` +
        'the arrow keys pan, 0 shows the whole request' });
    const defs = el('svg:defs', null,
      el('svg:clipPath', { id: 'plot-clip' }, el('svg:rect', { x: labelW, y: 0, width: plotW, height: H })),
      el('svg:marker', { id: 'arrow', viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 6, markerHeight: 6,
        orient: 'auto-start-reverse' }, el('svg:path', { d: 'M0,0 L8,4 L0,8 z', class: 'flow-head' })));
    svg.append(defs);

    // Lane backgrounds and labels, under the grid and the events.
    for (const [i, l] of layout.entries()) {
      const g = el('svg:g', { class: 'lane', 'data-track': l.tr.name });
      g.append(el('svg:rect', { x: 0, y: l.y, width: W, height: l.h, class: i % 2 ? 'lane-bg odd' : 'lane-bg' }));
      const label = String(l.tr.name);
      g.append(el('svg:text', { x: 8, y: l.y + l.h / 2 + 4, class: 'lane-label',
        text: label.length > labelChars ? label.slice(0, labelChars - 1) + '…' : label }, el('svg:title', { text: label })));
      svg.append(g);
    }

    // Time axis: µs since the request started, with grid lines.
    const spanUs = (v1 - v0) / 1e6;
    const step = niceStep(spanUs, Math.max(4, Math.floor(plotW / 110)));
    const startUs = (v0 - full[0]) / 1e6;
    const grid = el('svg:g', { class: 'axis' });
    for (let us = Math.ceil(startUs / step) * step; us <= startUs + spanUs + 1e-9; us += step) {
      const gx = x(full[0] + us * 1e6);
      grid.append(el('svg:line', { x1: gx, x2: gx, y1: top, y2: axisY, class: 'grid' }),
        el('svg:text', { x: gx, y: axisY + 14, 'text-anchor': 'middle', text: trim(+us.toFixed(6)) }));
    }
    grid.append(el('svg:line', { x1: labelW, x2: labelW + plotW, y1: axisY, y2: axisY, class: 'base' }),
      el('svg:text', { x: labelW + plotW, y: axisY + 31, 'text-anchor': 'end', class: 'axis-title',
        text: 'time since the request started (µs)' }));
    svg.append(grid);

    // Events.
    const centre = (l, p) => l.y + lanePad + p.row * rowH + rowH / 2;
    for (const l of layout) {
      const g = el('svg:g', { class: 'lane-events', 'data-track': l.tr.name, 'clip-path': 'url(#plot-clip)' });
      for (const p of l.placed.values()) {
        const { e, end, x0, x1 } = p;
        const durUs = (end - e.start_ps) / 1e6;
        const args = e.args && typeof e.args === 'object' && Object.keys(e.args).length
          ? '\n' + JSON.stringify(e.args) : '';
        const tip = `${e.name} (${l.tr.name})\n${trim((e.start_ps - full[0]) / 1e6)} → ` +
          `${trim((end - full[0]) / 1e6)} µs: ${durUs > 0 ? fmtUs(durUs) : 'instant'}${args}`;
        const ev = el('svg:g', { class: durUs > 0 ? 'event' : 'event instant', 'data-name': e.name });
        ev.append(el('svg:rect', { x: x0, y: centre(l, p) - rowH / 2 + 2, width: x1 - x0, height: rowH - 4,
          rx: 2, fill: eventColor(e.name) }, el('svg:title', { text: tip })));
        if (x1 - x0 > 48) {
          ev.append(el('svg:text', { x: x0 + 4, y: centre(l, p) + 3.5, class: 'event-label',
            text: String(e.name).slice(0, Math.floor((x1 - x0 - 8) / 6)) }));
        }
        g.append(ev);
      }
      svg.append(g);
    }

    // Causal arrows (doorbell -> DMA -> interrupt, frames), as the trace inferred them.
    const flows = Array.isArray(t.flows) ? t.flows : [];
    if ($('timeline-arrows').checked && flows.length) {
      const g = el('svg:g', { class: 'flows', 'clip-path': 'url(#plot-clip)' });
      for (const f of flows) {
        const a = layout[f.from && f.from[0]], b = layout[f.to && f.to[0]];
        const pa = a && a.placed.get(f.from[1]), pb = b && b.placed.get(f.to[1]);
        if (!pa || !pb) continue;
        const ax = pa.x0, ay = centre(a, pa), bx = pb.x0, by = centre(b, pb);
        if (ay === by && Math.abs(bx - ax) < 1) continue;
        g.append(el('svg:path', { d: `M${ax},${ay} C${ax + 12},${ay} ${bx - 12},${by} ${bx},${by}`,
          class: `flow flow-${f.name}`, 'marker-end': 'url(#arrow)' }, el('svg:title', { text: f.name })));
      }
      svg.append(g);
    }

    // Drag across the plot to zoom into that stretch of time.
    const brush = el('svg:rect', { class: 'brush', x: 0, y: top, width: 0, height: axisY - top, visibility: 'hidden' });
    svg.append(brush);
    let dragFrom = null;
    const svgX = (ev) => clampX(ev.clientX - svg.getBoundingClientRect().left);
    // A second finger turns the drag into a pinch (fingers, above).
    const plotX = (ev) => ev.clientX - svg.getBoundingClientRect().left - labelW;
    svg.addEventListener('pointerdown', (ev) => {
      if (ev.pointerType === 'touch' && plotX(ev) >= 0) {
        if (ev.isPrimary) { // a new touch: forget a finger lifted elsewhere
          fingers.x.clear();
          fingers.held = null;
        }
        fingers.x.set(ev.pointerId, plotX(ev));
        if (fingers.x.size >= 2) {
          dragFrom = null;
          brush.setAttribute('visibility', 'hidden');
          fingers.held = fingers.x.size === 2
            ? [...fingers.x.values()].map((px) => v0 + (px / plotW) * (v1 - v0)) : null;
          return;
        }
      }
      if (ev.button !== 0 || plotX(ev) < 0) return;
      dragFrom = svgX(ev);
      svg.setPointerCapture(ev.pointerId);
    });
    svg.addEventListener('pointermove', (ev) => {
      if (fingers.x.has(ev.pointerId)) {
        fingers.x.set(ev.pointerId, plotX(ev));
        if (fingers.held) {
          pinchTimeline(plotW);
          return;
        }
      }
      if (dragFrom === null) return;
      const now = svgX(ev);
      brush.setAttribute('visibility', 'visible');
      brush.setAttribute('x', Math.min(dragFrom, now));
      brush.setAttribute('width', Math.abs(now - dragFrom));
    });
    const liftFinger = (ev) => {
      if (!fingers.x.delete(ev.pointerId) || !fingers.held) return false;
      fingers.held = null; // the pinch ends with its first finger up
      return true;
    };
    svg.addEventListener('pointercancel', liftFinger);
    svg.addEventListener('pointerup', (ev) => {
      if (liftFinger(ev) || dragFrom === null) return;
      const a = Math.min(dragFrom, svgX(ev)), b = Math.max(dragFrom, svgX(ev));
      dragFrom = null;
      brush.setAttribute('visibility', 'hidden');
      if (b - a < 4) return;
      const ps = (px) => v0 + ((px - labelW) / plotW) * (v1 - v0);
      setTimelineView(ps(a), ps(b));
    });
    // The wheel: with Ctrl or ⌘ (a pinch on a touchpad) it zooms around the
    // pointer; sideways or with Shift it pans; else it scrolls the page.
    svg.addEventListener('wheel', (ev) => {
      const at = Math.max(0, Math.min(1, (svgX(ev) - labelW) / plotW));
      if (ev.ctrlKey || ev.metaKey) zoomTimeline(Math.exp(ev.deltaY * 0.004), at);
      else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY))
        panTimeline((ev.shiftKey ? ev.deltaY : ev.deltaX) / plotW);
      else return;
      ev.preventDefault();
    }, { passive: false });
    svg.addEventListener('keydown', (ev) => {
      const act = TIMELINE_KEYS[ev.key];
      if (!act || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      ev.preventDefault();
      act();
    });

    const names = [...new Set(all.map((e) => e.name))].slice(0, 16);
    $('timeline-zoom').textContent = state.zoom
      ? `showing ${fmtUs((v0 - full[0]) / 1e6)} to ${fmtUs((v1 - full[0]) / 1e6)} of ${fmtUs((full[1] - full[0]) / 1e6)}`
      : `request ${t.request}: ${fmtUs((full[1] - full[0]) / 1e6)} end to end`;
    $('timeline-reset').disabled = !state.zoom;
    $('timeline-zoom-out').disabled = !state.zoom;
    $('timeline-earlier').disabled = !state.zoom || v0 <= full[0];
    $('timeline-later').disabled = !state.zoom || v1 >= full[1];
    const legend = el('div', { class: 'timeline-legend' }, names.map((n) => el('span', { class: 'legend-item' },
      el('span', { class: 'swatch', style: `background:${eventColor(n)}` }), n)));
    // Redrawn after a key: the focus stays on the timeline.
    const focused = box.contains(document.activeElement) && document.activeElement.tagName === 'svg';
    box.replaceChildren(svg, legend);
    if (focused) svg.focus();
  }

  // ---------------------------------------------------------------- charts

  const charts = {};
  const hasChart = () => typeof window.Chart === 'function';

  // A vertical line at options.plugins.markX.x (the selected latency).
  const markXPlugin = {
    id: 'markX',
    afterDatasetsDraw(chart, args, opts) {
      if (!opts || !isNum(opts.x)) return;
      const { ctx, chartArea, scales } = chart;
      const px = scales.x.getPixelForValue(opts.x);
      if (px < chartArea.left || px > chartArea.right) return;
      ctx.save();
      ctx.strokeStyle = 'rgba(15, 23, 42, 0.35)';
      ctx.setLineDash([4, 4]);
      ctx.beginPath();
      ctx.moveTo(px, chartArea.top);
      ctx.lineTo(px, chartArea.bottom);
      ctx.stroke();
      ctx.restore();
    },
  };

  function chartOptions(xTitle, yTitle, extra) {
    return Object.assign({
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: { type: 'linear', title: { display: true, text: xTitle } },
        y: { title: { display: true, text: yTitle } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12, usePointStyle: true } } },
    }, extra || {});
  }

  // Draws (or redraws) chart `id`; `alt` is its text alternative, with the
  // table beside it that holds its numbers.
  function upsertChart(id, config, alt) {
    $(id).setAttribute('aria-label', alt);
    if (!hasChart()) return null;
    if (charts[id]) {
      charts[id].data = config.data;
      charts[id].options = config.options;
      charts[id].update('none');
    } else {
      charts[id] = new window.Chart($(id), config);
    }
    return charts[id];
  }

  function line(label, color, points, extra) {
    return Object.assign({ label, data: points, borderColor: color, backgroundColor: color,
      pointRadius: 4, pointHoverRadius: 6, borderWidth: 2, tension: 0 }, extra || {});
  }

  // Linear interpolation between measured points, to place the crossover
  // marker on the chart (the crossover itself is the verdict's).
  function interpolate(points, xv) {
    for (let i = 1; i < points.length; i++) {
      const p = points[i - 1], q = points[i];
      if (xv >= p.x && xv <= q.x) return p.y + ((q.y - p.y) * (xv - p.x)) / ((q.x - p.x) || 1);
    }
    return null;
  }

  function renderLatencyChart() {
    const s = currentS();
    const [a, b] = PAIR;
    // The grid's cells and the extra runs between them (a refinement's),
    // in x order: the curves as measured.
    const rows = [...M.xs.map((x) => ({ x, c: cellAt(x, s), extra: false })),
      ...M.extraCells.filter((c) => (SK ? +c.series === +s : true)).map((c) => ({ x: c.x, c, extra: true }))]
      .sort((p, q) => p.x - q.x);
    const points = (d) => rows.filter((r) => r.c && r.c[d] && isNum(r.c[d].median_us))
      .map((r) => ({ x: r.x, y: r.c[d].median_us, extra: r.extra }));
    const pa = points(a), pb = points(b);
    const cross = M.verdict && Array.isArray(M.verdict.crossovers)
      ? M.verdict.crossovers.find((c) => (SK ? +c.series === +s : true)) : null;
    // Extra runs are small diamonds on the same lines.
    const extraStyle = { pointRadius: (c) => (c.raw && c.raw.extra ? 2.5 : 4),
      pointStyle: (c) => (c.raw && c.raw.extra ? 'rectRot' : 'circle') };
    const datasets = [line(variantName(a), variantColor(a), pa, extraStyle),
      line(variantName(b), variantColor(b), pb, extraStyle)];
    const crossings = cross && Array.isArray(cross.crossings) ? cross.crossings : [];
    for (const k of crossings.filter((k) => isNum(k.x))) {
      const y = interpolate(pa, k.x);
      if (y === null) continue;
      const how = k.measured && k.how ? `, ${k.how}` : '';
      datasets.push(line(`crossover at ${X.label} ≈ ${fmtNumber(k.x, 2)}${unitText(X)}${how}`, '#0f172a',
        [{ x: k.x, y }], { showLine: false, pointRadius: 8, pointStyle: 'crossRot', borderWidth: 3 }));
    }
    const extras = rows.filter((r) => r.extra).length;
    $('latency-caption').textContent = `End-to-end median of ${label(a)} and ${label(b)}` +
      (SK ? ` at ${SK.title} ${fmtS(s)}` : '') +
      ` for each measured ${X.title}; the dashed line is the selected ${X.phrase}` +
      (extras ? `; the small diamonds are extra runs at ${extras} value${extras === 1 ? '' : 's'} between ` +
        'the grid\'s, where the ranking changes (refinement).' : '.');
    setTable($('latency-table'), [cap(X.title), variantName(a), variantName(b), 'Faster', 'By'],
      rows.map(({ x, c, extra }) => {
        const w = c && (isPair(c.winner) || c.winner === 'tie') ? c.winner : null;
        return {
          attrs: { data: { x: String(x), extra: String(extra) },
            class: extra ? 'extra' : +x === +currentX() ? 'current' : null },
          cells: [extra ? `${fmtExact(x)} (extra run)` : fmtX(x),
            fmtUs(c && c[a] && c[a].median_us), fmtUs(c && c[b] && c[b].median_us),
            w ? variantName(w) : '—',
            isPair(w) ? `${fmtUs(Math.abs(num(c.margin_us) || 0))} (${fmtPct(c.margin_pct)})` : '—'],
        };
      }), {
      head: [knobCol(X), 'extra_run', `${a}.median_us`, `${b}.median_us`, 'faster', 'margin_us', 'margin_pct'],
      rows: rows.map(({ x, c, extra }) => [x, extra, c && c[a] && c[a].median_us, c && c[b] && c[b].median_us,
        c && c.winner, c && c.margin_us, c && c.margin_pct]),
    });
    const txt = $('crossover-text');
    txt.textContent = cross ? cross.text || '' : M.verdict ? `No crossover reported${SK ? ` at ${fmtS(s)}` : ''}.` : '';
    txt.hidden = !txt.textContent;
    const xTitle = `${X.title} ${X.label}${X.unit ? ` (${unitText(X).trim()})` : ''}`;
    upsertChart('latency-chart', {
      type: 'line',
      data: { datasets },
      options: chartOptions(xTitle, 'end-to-end median (µs)', {
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12, usePointStyle: true } },
          markX: { x: currentX() },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmtUs(c.parsed.y)} at ${X.label} = ${fmtX(c.parsed.x)}` } },
        },
      }),
      plugins: [markXPlugin],
    }, `Chart: ${$('latency-title').textContent}` + (SK ? ` at ${SK.title} ${fmtS(s)}` : '') +
      '; the table below it holds its numbers.');
  }

  function renderBaselines() {
    const rows = M.baselines.filter((r) => isNum(r.x));
    const panel = $('baselines-panel');
    panel.hidden = !rows.length;
    if (!rows.length) return;
    const shown = [...BASELINES, ...PAIR];
    setTable($('baselines'), [cap(X.title), ...shown.map(variantName)],
      rows.map((r) => ({ cells: [fmtX(r.x), ...shown.map((d) => fmtUs(r[`${d}_median_us`]))] })), {
        head: [knobCol(X), ...shown.map((d) => `${d}.median_us`)],
        rows: rows.map((r) => [r.x, ...shown.map((d) => r[`${d}_median_us`])]),
      });
    const pts = (f) => rows.filter((r) => isNum(r[f]) && r[f] > 0).map((r) => ({ x: r.x, y: r[f] }));
    const xTitle = `${X.title} ${X.label}${X.unit ? ` (${unitText(X).trim()})` : ''}`;
    upsertChart('baselines-chart', {
      type: 'line',
      data: { datasets: shown.map((d) => line(variantName(d), variantColor(d), pts(`${d}_median_us`))) },
      options: chartOptions(xTitle, 'end-to-end median (µs, log scale)', {
        scales: {
          x: { type: 'linear', title: { display: true, text: xTitle } },
          y: { type: 'logarithmic', title: { display: true, text: 'end-to-end median (µs, log scale)' } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12, usePointStyle: true } },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmtUs(c.parsed.y)}` } },
        },
      }),
    }, `Chart: end-to-end median against ${X.title}, log scale; the table below it holds its numbers.`);
  }

  function renderLoad() {
    const counts = new Map();
    for (const r of M.load) counts.set(key(r.variant, r.x), (counts.get(key(r.variant, r.x)) || 0) + 1);
    const rows = !LK ? [] : M.load.filter((r) => isNum(r.load) && isNum(r.x) && counts.get(key(r.variant, r.x)) > 1)
      .sort((p, q) => String(p.variant).localeCompare(q.variant) || p.x - q.x || p.load - q.load);
    const panel = $('load-panel');
    panel.hidden = !rows.length;
    if (!rows.length) return;
    // The study's load share (verdict "share"), when it names one: e.g. how
    // often the device's queue already held the next request when one finished.
    const share = LK.share && typeof LK.share === 'object' ? LK.share : null;
    setTable($('load'), [cap(S.axis), cap(X.title), cap(LK.label), 'Throughput', 'Median', 'p99',
      ...(share ? [cap(share.label)] : [])],
    rows.map((r) => ({ cells: [variantName(r.variant), fmtX(r.x), fmtLoad(r.load),
      fmtRps(r.throughput_rps), fmtUs(r.median_us), fmtUs(r.p99_us),
      ...(share ? [isNum(r.share) ? fmtNumber(100 * r.share, 0) + ' %' : '—'] : [])] })), {
      head: [S.axis, knobCol(X), knobCol(LK), 'throughput_rps', 'median_us', 'p99_us', ...(share ? ['share'] : [])],
      rows: rows.map((r) => [r.variant, r.x, r.load, r.throughput_rps, r.median_us, r.p99_us,
        ...(share ? [r.share] : [])]),
    });
    const groups = new Map();
    for (const r of rows) {
      const k = key(r.variant, r.x);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(r);
    }
    const xs = uniqueSorted(rows.map((r) => r.x));
    const datasets = (field) => [...groups.values()].map((g) => {
      const d = g[0].variant;
      const high = xs.length > 1 && g[0].x === xs[xs.length - 1];
      return line(`${variantName(d)}, ${X.label} = ${fmtX(g[0].x)}`, variantColor(d, !high),
        g.filter((r) => isNum(r[field])).map((r) => ({ x: r.load, y: r[field] })),
        { borderDash: high ? [] : [6, 4] });
    });
    const loads = uniqueSorted(rows.map((r) => r.load));
    const loadTicks = { callback: (v) => String(v) };
    const onlyLoads = (scale) => { scale.ticks = loads.map((v) => ({ value: v })); };
    // The two load charts differ only in the measure they plot.
    const loadChart = (id, field, yTitle, title, fmt) => upsertChart(id, {
      type: 'line',
      data: { datasets: datasets(field) },
      options: chartOptions(LK.phrase, yTitle, {
        scales: { x: { type: 'linear', ticks: loadTicks, afterBuildTicks: onlyLoads, title: { display: true, text: LK.phrase } },
          y: { beginAtZero: true, title: { display: true, text: yTitle } } },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12, usePointStyle: true } },
          title: { display: true, text: title },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmt(c.parsed.y)} with ${c.parsed.x} ${LK.label}` } } },
      }),
    }, `Chart: ${title.toLowerCase()} against ${LK.phrase}; the table under "The numbers" holds them.`);
    loadChart('load-throughput-chart', 'throughput_rps', 'throughput (requests/s)', 'Throughput', fmtRps);
    loadChart('load-latency-chart', 'median_us', 'end-to-end median (µs)', 'Latency per request', fmtUs);
  }

  function renderRuns() {
    $('runs-count').textContent = `(${M.runs.length})`;
    setTable($('runs'), ['Run', 'Status', cap(S.axis), cap(X.title), ...(SK ? [cap(SK.label)] : []),
      ...(LK ? [cap(LK.label)] : []), 'Requests', 'Median', 'p99', 'Throughput', 'Wall time', 'Error'],
    M.runs.map((r) => {
      const s = r.summary || {};
      return {
        attrs: { data: { runId: String(r.id), status: String(r.status) } },
        cells: [`#${r.id}`, String(r.status), variantName(r.variant), fmtX(r.x),
          ...(SK ? [fmtS(r.series)] : []), ...(LK ? [fmtLoad(r.load)] : []),
          isNum(s.requests) ? `${s.requests} (${s.verified} verified)` : '—',
          fmtUs(s.median_us), fmtUs(s.p99_us), fmtRps(s.throughput_rps),
          isNum(r.wall_s) ? `${fmtNumber(r.wall_s, 1)} s` : '—', r.error || ''],
      };
    }), {
      head: ['run', 'status', S.axis, knobCol(X), ...(SK ? [knobCol(SK)] : []), ...(LK ? [knobCol(LK)] : []),
        'requests', 'verified', 'median_us', 'p99_us', 'throughput_rps', 'wall_s', 'error'],
      rows: M.runs.map((r) => {
        const s = r.summary || {};
        return [r.id, r.status, r.variant, r.x, ...(SK ? [r.series] : []), ...(LK ? [r.load] : []),
          s.requests, s.verified, s.median_us, s.p99_us, s.throughput_rps, r.wall_s, r.error];
      }),
    });
  }

  // ---------------------------------------------------------------- downloads

  // Every chart as PNG and SVG, every table as CSV: a row of buttons under
  // each, made at start. Files are named after the study and the element:
  // "<study>-latency-chart.png".
  function fileName(id, ext) {
    const study = String(S.name || 'study').replace(/[^A-Za-z0-9_.-]+/g, '-');
    return `${study}-${id}.${ext}`;
  }

  // Saves `href` (a data: or blob: URL) as `name`, as a click on a link would.
  function save(name, href) {
    const a = el('a', { href, download: name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
  }
  function saveText(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    save(name, url);
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // One CSV field: numbers as numbers, text quoted when it must be.
  function csvField(v) {
    if (v === null || v === undefined) return '';
    if (typeof v === 'number') return isNum(v) ? String(v) : '';
    const t = String(v);
    return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  }
  const csvText = ({ head, rows }) => [head, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';

  // The chart on a white background, as a PNG data URL.
  function chartPng(chart) {
    const c = chart.canvas;
    const out = el('canvas', { width: c.width, height: c.height });
    const ctx = out.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(c, 0, 0);
    return out.toDataURL('image/png');
  }

  // The chart drawn again as SVG from what Chart.js laid out: its axes with
  // their ticks and titles, each visible dataset's line and points, the
  // legend and the title. Chart.js itself draws on a canvas only.
  function chartSvg(chart) {
    const W = chart.width, H = chart.height, area = chart.chartArea;
    const svg = el('svg:svg', { xmlns: 'http://www.w3.org/2000/svg', width: W, height: H,
      viewBox: `0 0 ${W} ${H}`, 'font-family': 'sans-serif', 'font-size': 11, fill: '#334155' });
    svg.append(el('svg:rect', { width: W, height: H, fill: '#fff' }));
    for (const sc of Object.values(chart.scales)) {
      const across = sc.isHorizontal();
      sc.ticks.forEach((t, i) => {
        const p = sc.getPixelForTick(i);
        const text = Array.isArray(t.label) ? t.label.join(' ') : String(t.label ?? '');
        svg.append(across
          ? el('svg:line', { x1: p, x2: p, y1: area.top, y2: area.bottom, stroke: '#e2e8f0' })
          : el('svg:line', { x1: area.left, x2: area.right, y1: p, y2: p, stroke: '#e2e8f0' }));
        svg.append(across
          ? el('svg:text', { x: p, y: area.bottom + 14, 'text-anchor': 'middle', text })
          : el('svg:text', { x: area.left - 6, y: p + 4, 'text-anchor': 'end', text }));
      });
      const title = sc.options.title && sc.options.title.display ? sc.options.title.text : '';
      if (title) {
        svg.append(across
          ? el('svg:text', { x: (area.left + area.right) / 2, y: sc.bottom - 4, 'text-anchor': 'middle', text: title })
          : el('svg:text', { x: 0, y: 0, 'text-anchor': 'middle', text: title,
            transform: `translate(${sc.left + 10},${(area.top + area.bottom) / 2}) rotate(-90)` }));
      }
    }
    chart.data.datasets.forEach((d, i) => {
      if (!chart.isDatasetVisible(i)) return;
      const pts = chart.getDatasetMeta(i).data.map((e) => [e.x, e.y]).filter(([x, y]) => isNum(x) && isNum(y));
      const color = d.borderColor || '#334155';
      if (d.showLine !== false && pts.length > 1) {
        svg.append(el('svg:polyline', { points: pts.map((p) => p.join(',')).join(' '), fill: 'none',
          stroke: color, 'stroke-width': d.borderWidth || 2,
          'stroke-dasharray': Array.isArray(d.borderDash) && d.borderDash.length ? d.borderDash.join(' ') : null }));
      }
      const r = typeof d.pointRadius === 'number' ? d.pointRadius : 3;
      for (const [x, y] of pts) {
        svg.append(d.pointStyle === 'crossRot'
          ? el('svg:path', { d: `M${x - r},${y - r}L${x + r},${y + r}M${x - r},${y + r}L${x + r},${y - r}`,
            stroke: color, 'stroke-width': d.borderWidth || 2 })
          : el('svg:circle', { cx: x, cy: y, r, fill: color }));
      }
    });
    const legend = chart.legend;
    if (legend && Array.isArray(legend.legendItems) && Array.isArray(legend.legendHitBoxes)) {
      legend.legendItems.forEach((item, i) => {
        const box = legend.legendHitBoxes[i];
        if (!box) return;
        svg.append(el('svg:circle', { cx: box.left + 6, cy: box.top + box.height / 2, r: 5,
          fill: item.strokeStyle || item.fillStyle }),
        el('svg:text', { x: box.left + 16, y: box.top + box.height / 2 + 4, text: item.text }));
      });
    }
    const titleBlock = chart.titleBlock;
    if (titleBlock && titleBlock.options && titleBlock.options.display) {
      svg.append(el('svg:text', { x: W / 2, y: titleBlock.top + 14, 'text-anchor': 'middle', 'font-weight': 'bold',
        'font-size': 12, text: String(titleBlock.options.text) }));
    }
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(svg) + '\n';
  }

  // The drawn timeline as a standalone SVG: the page's style of each
  // element (its classes' fill, stroke, font) written onto it.
  function timelineSvg() {
    const svg = $('timeline').querySelector('svg');
    if (!svg) return null;
    const copy = svg.cloneNode(true);
    const from = [svg, ...svg.querySelectorAll('*')], to = [copy, ...copy.querySelectorAll('*')];
    const props = ['fill', 'stroke', 'stroke-width', 'font-size', 'font-family', 'font-weight', 'visibility'];
    from.forEach((node, i) => {
      const cs = getComputedStyle(node);
      to[i].setAttribute('style', props.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';'));
    });
    copy.querySelectorAll('.brush').forEach((n) => n.remove());
    copy.removeAttribute('tabindex');
    copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    copy.insertBefore(el('svg:rect', { width: '100%', height: '100%', fill: '#fff' }), copy.firstChild);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy) + '\n';
  }

  // The timeline's SVG drawn on a canvas at twice its size, saved as PNG.
  function saveTimelinePng(name) {
    const text = timelineSvg();
    if (!text) return;
    const svg = $('timeline').querySelector('svg');
    const w = +svg.getAttribute('width'), h = +svg.getAttribute('height');
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    img.onload = () => {
      const c = el('canvas', { width: 2 * w, height: 2 * h });
      const ctx = c.getContext('2d');
      ctx.scale(2, 2);
      ctx.drawImage(img, 0, 0, w, h);
      URL.revokeObjectURL(url);
      save(name, c.toDataURL('image/png'));
    };
    img.src = url;
  }

  // A row of buttons, each "Download <what> as <FORMAT>" to a screen reader
  // and "<FORMAT>" on screen.
  function downloadBar(what, formats) {
    return el('div', { class: 'downloads' }, el('span', { class: 'downloads-label', 'aria-hidden': 'true', text: 'Download' }),
      Object.entries(formats).map(([format, run]) => el('button', {
        type: 'button', class: 'download', data: { format: format.toLowerCase() }, on: { click: run },
      }, el('span', { class: 'sr-only', text: `Download ${what} as ` }), format)));
  }

  function addDownloads() {
    for (const canvas of document.querySelectorAll('canvas[id$="-chart"]')) {
      const id = canvas.id;
      const what = `the ${id.replace(/-/g, ' ')}`;
      const chart = () => (hasChart() ? window.Chart.getChart(canvas) : null);
      canvas.parentElement.after(downloadBar(what, {
        PNG: () => chart() && save(fileName(id, 'png'), chartPng(chart())),
        SVG: () => chart() && saveText(fileName(id, 'svg'), 'image/svg+xml', chartSvg(chart())),
      }));
    }
    const traced = () => `timeline-${$('timeline').dataset.runId || ''}`;
    // the request as Perfetto and OTLP JSON: the files beside the page
    // (traces/<id>.perfetto.json.gz, .otlp.json.gz) that the report wrote
    const exported = (format) => {
      const t = (M.data.traces || {})[$('timeline').dataset.runId || ''];
      const file = t && t.exports && t.exports[format];
      if (typeof file === 'string') save(file.split('/').pop(), file);
    };
    $('timeline-tools').append(downloadBar('the traced request\'s timeline', {
      SVG: () => { const t = timelineSvg(); if (t) saveText(fileName(traced(), 'svg'), 'image/svg+xml', t); },
      PNG: () => saveTimelinePng(fileName(traced(), 'png')),
      Perfetto: () => exported('perfetto'),
      OTLP: () => exported('otlp'),
    }));
    for (const table of document.querySelectorAll('table.data')) {
      const what = `the ${table.id.replace(/-table$/, '').replace(/-/g, ' ')} table`;
      table.closest('.table-box').after(downloadBar(what, {
        CSV: () => table.csvData && saveText(fileName(table.id, 'csv'), 'text/csv', csvText(table.csvData)),
      }));
    }
  }

  // ---------------------------------------------------------------- start

  function start() {
    const data = loadData();
    if (!data) {
      const e = $('page-error');
      e.hidden = false;
      e.textContent = 'This page has no data: it is the template. Open the page that `mortar report` writes, or `mortar serve`.';
      document.body.dataset.ready = 'error';
      return;
    }
    readStudy(data);
    M = buildModel(data);
    state.variant = PAIR[0] || '';
    if (hasChart()) {
      window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
      window.Chart.defaults.color = '#334155';
    }
    renderStudyTexts();
    addDownloads();
    renderHeader();
    renderAnswer();
    renderWalkthrough();
    renderVerdict();
    renderRuns();
    renderBaselines();
    renderLoad();
    const explore = [$('explore'), $('timeline-panel'), $('latency-panel')];
    if (!M.cells.length || !M.xs.length || !M.series.length) {
      for (const p of explore) p.hidden = true;
      const e = $('page-error');
      e.hidden = false;
      e.textContent = M.runs.length
        ? `No finished runs of ${S.axis} ${PAIR.map(label).join(' or ')}${LK ? ` with ${fmtLoad(S.load_at)} ${LK.label}` : ''} yet: the grid is empty.`
        : 'The database has no runs yet: record some with `mortar sweep` or `mortar run`.';
      document.body.dataset.ready = 'true';
      return;
    }
    renderControls();
    renderMap();
    $('cards').replaceChildren(...PAIR.map((d) => {
      const card = el('article', { class: 'card', id: 'card-' + d, tabindex: '0', data: { variant: d } });
      card.addEventListener('click', () => selectVariant(d));
      card.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          selectVariant(d);
        }
      });
      return card;
    }));
    $('timeline-reset').addEventListener('click', () => {
      state.zoom = null;
      renderTimeline();
    });
    $('timeline-zoom-in').addEventListener('click', () => zoomTimeline(0.5, 0.5));
    $('timeline-zoom-out').addEventListener('click', () => zoomTimeline(2, 0.5));
    $('timeline-earlier').addEventListener('click', () => panTimeline(-0.25));
    $('timeline-later').addEventListener('click', () => panTimeline(0.25));
    $('timeline-arrows').addEventListener('change', renderTimeline);
    const at = SK ? M.series.indexOf(S.series_at) : 0;
    state.xi = 0;
    state.si = at >= 0 ? at : 0;
    followLink();
    window.addEventListener('hashchange', followLink);
    let pending = 0;
    window.addEventListener('resize', () => {
      clearTimeout(pending);
      pending = setTimeout(renderTimeline, 150);
    });
    document.body.dataset.ready = 'true';
  }

  start();
})();
