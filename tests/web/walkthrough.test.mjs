// walkthrough.test.mjs - `mortar report --video` on the synthetic database
// of make_db.c: the video's streams, size and length (ffprobe), the
// narration's numbers against `mortar verdict --json`, a frame in the
// middle of a scene read back by OCR (tesseract) to find that scene's
// subtitle, and the same script and subtitles from a second report of the
// same database. (Another verdict or another study giving another script:
// studies/matmul/tests/test_matmul_walkthrough_script.c.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { MORTAR, freshDatabase, pageData, run } from './common.mjs';

for (const tool of ['ffmpeg', 'ffprobe', 'espeak-ng', 'tesseract']) {
  if (run('sh', ['-c', `command -v ${tool}`]).code !== 0) {
    console.log(`skipped: ${tool} is not installed (tools/setup.sh)`);
    process.exit(77);
  }
}
if (!existsSync(process.env.MORTAR_CHROMIUM || '/usr/bin/chromium')) {
  console.log('skipped: no chromium (tools/setup.sh)');
  process.exit(77);
}

let fx, out, script, verdict;
before(() => {
  fx = freshDatabase('walkthrough');
  out = join(fx.dir, 'report');
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', out, '--video']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /wrote .*walkthrough\.mp4 \([0-9.]+ s, \d+ scenes\)/);
  script = JSON.parse(readFileSync(join(out, 'walkthrough.json'), 'utf8'));
  const v = run(MORTAR, ['verdict', '--db', fx.db, '--json']);
  assert.equal(v.code, 0, v.stderr);
  verdict = JSON.parse(v.stdout);
});

const scene = (id) => {
  const i = script.findIndex((s) => s.id === id);
  assert.ok(i >= 0, `no scene ${id}: ${script.map((s) => s.id)}`);
  const start = script.slice(0, i).reduce((t, s) => t + s.seconds, 0);
  return { ...script[i], start };
};

test('the video is H.264 and AAC at 1280x720, between 50 and 70 s long', () => {
  const r = run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams',
    join(out, 'walkthrough.mp4')]);
  assert.equal(r.code, 0, r.stderr);
  const probe = JSON.parse(r.stdout);
  const video = probe.streams.find((s) => s.codec_type === 'video');
  const audio = probe.streams.find((s) => s.codec_type === 'audio');
  assert.equal(video.codec_name, 'h264');
  assert.equal(video.width, 1280);
  assert.equal(video.height, 720);
  assert.equal(audio.codec_name, 'aac');
  const seconds = Number(probe.format.duration);
  assert.ok(seconds >= 50 && seconds <= 70, `${seconds} s`);
  const scripted = script.reduce((t, s) => t + s.seconds, 0);
  assert.ok(Math.abs(seconds - scripted) < 0.2, `${seconds} s against the script's ${scripted} s`);
});

test("the narration's numbers are the verdict's", () => {
  const at = verdict.axes.series_at;
  const alone = verdict.alone.find((a) => a.series === at);
  const fast = Math.min(alone.a_us, alone.b_us), slow = Math.max(alone.a_us, alone.b_us);
  const one = (v) => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  assert.match(scene('alone').text, new RegExp(`${(slow / fast).toFixed(2)}\u00d7 faster alone: ` +
    `${one(alone.a_us)} \u00b5s \\(A\\) against ${one(alone.b_us)} \u00b5s \\(B\\)\\.$`));
  // ... worded as the page's answer words its alone figure (one rule)
  const fig = pageData(readFileSync(join(out, 'index.html'), 'utf8')).answer.figures
    .find((f) => f.figure === 'alone');
  assert.ok(scene('alone').text.endsWith(`${fig.value} faster alone: ${fig.detail}.`), scene('alone').text);
  const crossing = verdict.crossovers.find((c) => c.series === at);
  assert.equal(scene('flip').text, `${crossing.text.split(' (')[0]}${crossing.text.includes(' (') ? '.' : ''}`);
  for (const m of verdict.movement.filter((mv) => mv.series === at)) {
    const from = Math.round(m.from_median_us), to = Math.round(m.to_median_us);
    assert.ok(scene('system').text.includes(`from ${from} to ${to} \u00b5s`), scene('system').text);
  }
  for (const s of script) assert.ok(!/\u00b5s|\u00d7/.test(s.speech), s.speech);
});

test("a frame in the middle of a scene shows that scene's subtitle", () => {
  for (const id of ['alone', 'map']) {
    const s = scene(id);
    const png = join(fx.dir, `${id}.png`);
    // the band the subtitles are burned into, its white letters kept as
    // black on white for the OCR
    const f = run('ffmpeg', ['-v', 'error', '-y', '-ss', String(s.start + s.seconds / 2),
      '-i', join(out, 'walkthrough.mp4'), '-frames:v', '1',
      '-vf', "crop=1280:120:0:590,format=gray,lut=y='if(gt(val,250),0,255)'", png]);
    assert.equal(f.code, 0, f.stderr);
    const ocr = run('tesseract', [png, '-', '--psm', '6']);
    assert.equal(ocr.code, 0, ocr.stderr);
    const words = (t) => t.toLowerCase().match(/[a-z]{3,}|\d{3,}/g) || [];
    const seen = new Set(words(ocr.stdout));
    const wanted = words(s.text);
    const found = wanted.filter((w) => seen.has(w));
    assert.ok(found.length >= 0.8 * wanted.length,
      `${id}: OCR found ${found.length} of ${wanted.length} words of "${s.text}" in:\n${ocr.stdout}`);
  }
});

test('the page names its walkthrough, which it shows muted', () => {
  const data = pageData(readFileSync(join(out, 'index.html'), 'utf8'));
  assert.deepEqual(data.walkthrough,
    { video: 'walkthrough.mp4', subtitles: 'walkthrough.vtt', script: 'walkthrough.json' });
  const plain = run(MORTAR, ['report', '--db', fx.db, '--out', join(fx.dir, 'plain')]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(pageData(readFileSync(join(fx.dir, 'plain', 'index.html'), 'utf8')).walkthrough, undefined);
});

test('the same database gives the same script and subtitles', () => {
  const again = join(fx.dir, 'again');
  const r = run(MORTAR, ['report', '--db', fx.db, '--out', again, '--video']);
  assert.equal(r.code, 0, r.stderr);
  for (const f of ['walkthrough.json', 'walkthrough.vtt'])
    assert.equal(readFileSync(join(again, f), 'utf8'), readFileSync(join(out, f), 'utf8'), f);
  const vtt = readFileSync(join(out, 'walkthrough.vtt'), 'utf8');
  for (const s of script) assert.ok(vtt.includes(`\n${s.text}\n`), s.text);
});
