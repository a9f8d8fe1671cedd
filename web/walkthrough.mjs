// walkthrough.mjs PAGE SCRIPT OUT_DIR - the scenes of `mortar report
// --video`, rendered from the explorer page itself: Debian's chromium,
// driven by playwright-core, opens PAGE (index.html, from disk) at
// 1280x720, and for each scene of SCRIPT (walkthrough_script_json's list)
// brings the part of the page its selector names to the top and saves the
// screen as OUT_DIR/scene-<n>.png. Prints nothing on success; a problem on
// stderr and exit 1.
import { existsSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [page, scriptFile, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: walkthrough.mjs PAGE SCRIPT OUT_DIR');
  process.exit(2);
}
const CHROMIUM = process.env.MORTAR_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.error(`no browser at ${CHROMIUM} (apt-get install chromium, or MORTAR_CHROMIUM)`);
  process.exit(1);
}
// playwright-core beside this file (share/mortar/web/node_modules), else in
// the source tree's web/ when run from there.
const here = dirname(fileURLToPath(import.meta.url));
let chromium;
for (const dir of [here, process.env.MORTAR_WEB_PACKAGES].filter(Boolean)) {
  try {
    ({ chromium } = createRequire(join(dir, 'package.json'))('playwright-core'));
    break;
  } catch { /* next place */ }
}
if (!chromium) {
  console.error(`playwright-core is not installed beside ${here} (build the "web" target)`);
  process.exit(1);
}

const scenes = JSON.parse(readFileSync(scriptFile, 'utf8'));
const browser = await chromium.launch({ executablePath: CHROMIUM });
try {
  const view = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  view.on('pageerror', (e) => errors.push(e.message));
  await view.goto(pathToFileURL(page).href);
  await view.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await view.waitForTimeout(1500); // the charts' first animation
  for (const [i, scene] of scenes.entries()) {
    await view.evaluate((selector) => {
      const el = document.querySelector(selector) || document.body;
      window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8);
    }, scene.selector);
    await view.waitForTimeout(200);
    await view.screenshot({ path: join(outDir, `scene-${i + 1}.png`) });
  }
  if (errors.length) throw new Error(`the page failed: ${errors.join('; ')}`);
} catch (e) {
  console.error(e.message);
  process.exitCode = 1;
} finally {
  await browser.close();
}
