// build.mjs - assembles the explorer's template: src/index.html with its
// style (src/explorer.css), Chart.js (from node_modules, as npm installed it)
// and its script (src/explorer.js) inlined, so the page is one file that
// works from disk. `mortar report` later puts the data into the one
// @MORTAR_DATA@ slot.
//
//   node build.mjs OUT.html
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('usage: node build.mjs OUT.html');
  process.exit(2);
}

const read = (...parts) => readFileSync(join(here, ...parts), 'utf8');

function fail(msg) {
  console.error(`build.mjs: ${msg}`);
  process.exit(1);
}

// Text inlined into <script> or <style> must not close that element early.
function inlineScript(js) {
  return '<script>\n' + js.replace(/<\/script/gi, '<\\/script') + '\n</script>';
}
function inlineStyle(css) {
  return '<style>\n' + css.replace(/<\/style/gi, '<\\/style') + '\n</style>';
}

let chartjs;
try {
  chartjs = read('node_modules', 'chart.js', 'dist', 'chart.umd.min.js');
} catch (e) {
  fail(`Chart.js is not installed (run npm ci in ${here}): ${e.message}`);
}
// The page has no source maps next to it.
chartjs = chartjs.replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');

const parts = {
  '<!--inline:explorer.css-->': inlineStyle(read('src', 'explorer.css')),
  '<!--inline:chart.js-->': inlineScript(chartjs),
  '<!--inline:explorer.js-->': inlineScript(read('src', 'explorer.js')),
};

let html = read('src', 'index.html');
for (const [marker, text] of Object.entries(parts)) {
  if (html.split(marker).length !== 2) fail(`src/index.html must hold ${marker} once`);
  // A function, so that '$' in the inlined text is taken literally.
  html = html.replace(marker, () => text);
}
if (html.split('@MORTAR_DATA@').length !== 2)
  fail('the page must hold the @MORTAR_DATA@ slot exactly once');

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out + '.tmp', html);
renameSync(out + '.tmp', out);
