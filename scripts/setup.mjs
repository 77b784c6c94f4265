#!/usr/bin/env node
// Brings a fresh checkout to a runnable state: dependencies, build, Chromium and the fonts documents
// print with, qpdf (reading PDFs into an assembly), and for tests poppler-utils. Uses only Node built-ins, so it runs before `npm install` ever did.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const forTests = process.argv.includes('--test');
const log = (msg) => process.stderr.write(`[setup] ${msg}\n`);
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(cmd, args, opts = {}) {
  log(`${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const res = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (res.status !== 0) {
    log(`failed: ${cmd} ${args.join(' ')} (exit ${res.status ?? res.signal})`);
    process.exit(1);
  }
  // What each step of a first start costs, so a slow one is seen for what it is (README, "First start").
  log(`done in ${Math.round((Date.now() - started) / 1000)} s: ${cmd} ${args[0] ?? ''}`);
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function newestIn(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, mtime(path.join(entry.parentPath ?? entry.path, entry.name)));
  }
  return newest;
}

// 0. Node itself: one of the lines package.json's engines names (`^20.18.1 || ^22.16.0 || >=24`).
const engines = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
const version = (v) =>
  v
    .replace(/^[^\d]*/, '')
    .split('.')
    .map(Number);
const atLeast = (x, y) => {
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return true;
};
const running = version(process.versions.node);
const supported = engines.split('||').some((range) => {
  const r = range.trim();
  const v = version(r);
  return r.startsWith('^') ? running[0] === v[0] && atLeast(running, v) : atLeast(running, v);
});
if (!supported) {
  log(`Node.js ${process.versions.node} is not supported: Pageworks runs on ${engines} (package.json "engines")`);
  process.exit(1);
}
// Without node:sqlite (Node 20) the store uses better-sqlite3, which compiles at install.
const nativeStore = running[0] < 22;

// 1. Dependencies: install when missing, when the lock file changed since the last install, or when
// they were installed under another Node line (its native build, or its lack of one, does not fit this one).
const installedStamp = path.join(root, 'node_modules', '.package-lock.json');
const abiStamp = path.join(root, 'node_modules', '.pageworks-node-abi');
const installedAbi = fs.existsSync(abiStamp) ? fs.readFileSync(abiStamp, 'utf8').trim() : undefined;
const storeDriverMissing =
  nativeStore && !fs.existsSync(path.join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
if (
  !fs.existsSync(installedStamp) ||
  mtime(path.join(root, 'package-lock.json')) > mtime(installedStamp) ||
  (installedAbi !== undefined && installedAbi !== process.versions.modules) ||
  storeDriverMissing
) {
  log(
    `installing dependencies (the longest step of a first start${nativeStore ? '; on Node 20 better-sqlite3 also builds from source' : ''}: README, "First start")`,
  );
  run('npm', ['ci', '--no-audit', '--no-fund']);
  fs.writeFileSync(abiStamp, `${process.versions.modules}\n`);
}

// 2. Build: compile when dist is missing or older than any source file.
const builtStamp = path.join(root, 'dist', 'cli.js');
if (!fs.existsSync(builtStamp) || newestIn(path.join(root, 'src')) > mtime(builtStamp)) {
  log('building (tsc)');
  run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
  fs.utimesSync(builtStamp, new Date(), new Date());
}

// 3. System packages: Chromium for rendering, qpdf for reading PDFs into an assembly; poppler-utils for the tests that read PDFs back, curl for the docs' examples.
// The server's own detection (src/render/browser/chromium-executable.ts), built in step 2.
const { browserBuild, chromiumExecutable } = await import(
  pathToFileURL(path.join(root, 'dist', 'render', 'browser', 'chromium-executable.js')).href
);
function findChromium() {
  const found = chromiumExecutable(process.env.CHROMIUM_PATH || undefined);
  return found && fs.existsSync(found) ? found : undefined;
}
const needed = [];
const services = process.env.PAGEWORKS_SERVICES ?? 'render';
// Renders run on Chromium's headless shell (the same printing code without the browser UI: faster, less
// memory) where it is installed, else on full Chromium. As root it is installed unless CHROMIUM_PATH
// chose a browser; where apt does not know the package (older releases), full Chromium serves.
// The tests also need full Chromium: the dashboard's browser tests drive it through Playwright, and
// one suite section renders on it to keep the fallback true.
const aptKnows = (pkg) =>
  /Candidate: (?!\(none\))/.test(spawnSync('apt-cache', ['policy', pkg], { encoding: 'utf8' }).stdout ?? '');
const wantsRender = forTests || services.includes('render');
const shellMissing = !fs.existsSync('/usr/bin/chromium-headless-shell');
if (wantsRender && isRoot && !process.env.CHROMIUM_PATH && shellMissing && aptKnows('chromium-headless-shell')) {
  needed.push('chromium-headless-shell');
}
if (wantsRender && !findChromium() && !needed.includes('chromium-headless-shell')) needed.push('chromium');
if (forTests && !fs.existsSync('/usr/bin/chromium') && !needed.includes('chromium')) needed.push('chromium');
// A browser without a Latin font prints boxes.
if (needed.length > 0) needed.push('fonts-liberation');
// qpdf: the render service reads existing PDFs of every layout into an assembly with it; the
// tests read PDFs back with it too (test/render/pdf-tools.ts).
if (wantsRender && spawnSync('sh', ['-c', 'command -v qpdf']).status !== 0) needed.push('qpdf');
if (forTests) {
  for (const tool of ['pdftotext', 'pdftoppm']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      needed.push('poppler-utils');
      break;
    }
  }
  // The docs' examples run with the real curl (test/docs/examples.test.ts).
  if (spawnSync('sh', ['-c', 'command -v curl']).status !== 0) needed.push('curl');
  // A split's zip is read back with Info-ZIP's zipinfo and unzip (test/assemble/split.test.ts).
  if (spawnSync('sh', ['-c', 'command -v zipinfo']).status !== 0) needed.push('unzip');
}
// Fonts: without them CJK, Indic, Thai and emoji print as empty boxes, but the service still runs, so
// not root means a hint, not a stop. The Dockerfile's set, so a checkout prints what the image prints.
const FONT_PACKAGES = ['fonts-noto-core', 'fonts-noto-cjk', 'fonts-noto-color-emoji', 'fonts-liberation', 'fontconfig'];
function missingPackages(packages) {
  // dpkg-query exits 1 when any package is unknown, but still prints the known ones' status.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${Package} and ${Status} are dpkg-query's own format fields, not JavaScript.
  const res = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\n', ...packages], { encoding: 'utf8' });
  if (res.error) return undefined; // not Debian: nothing to install with apt
  const installed = new Set(
    res.stdout
      .split('\n')
      .filter((l) => l.endsWith(' install ok installed'))
      .map((l) => l.split(' ')[0]),
  );
  return packages.filter((p) => !installed.has(p));
}
const fonts = forTests || services.includes('render') ? (missingPackages(FONT_PACKAGES) ?? []) : [];
if (fonts.length > 0 && !isRoot) {
  log(`missing font packages: ${fonts.join(' ')} (documents in CJK, Indic, Thai scripts or with emoji print empty boxes)`);
  log(`install them with:  sudo apt-get install -y ${FONT_PACKAGES.join(' ')}`);
}
if (isRoot) needed.push(...fonts.filter((p) => !needed.includes(p)));
// The sRGB ICC profile PDF/A's OutputIntent carries (src/pdf/profiles/srgb-profile.ts): without it a
// document that declares PDF/A gets a warning instead of the claim, so not root means a hint.
const iccMissing = (forTests || services.includes('render')) && !fs.existsSync('/usr/share/color/icc/sRGB.icc');
if (iccMissing && (missingPackages(['icc-profiles-free']) ?? []).length > 0) {
  if (isRoot) needed.push('icc-profiles-free');
  else log('missing icc-profiles-free (PDF/A needs its sRGB profile): sudo apt-get install -y icc-profiles-free');
}
// nginx only for the suites that run deploy/nginx.conf; without it they skip loudly, so it is
// installed when we can (root) and never demanded. nginx-light is enough; plain nginx where it is not packaged.
const optional = forTests && isRoot && spawnSync('sh', ['-c', 'command -v nginx']).status !== 0 ? ['nginx-light'] : [];
if (needed.length > 0 || optional.length > 0) {
  if (needed.length > 0 && !isRoot) {
    log(`missing system packages: ${needed.join(' ')}`);
    log(`install them with:  sudo apt-get install -y ${needed.join(' ')}`);
    log('(or set CHROMIUM_PATH to an existing Chromium/Chrome executable)');
    process.exit(1);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  if (needed.length > 0) {
    log(`installing ${needed.join(' ')} with apt-get (running as root)`);
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...needed], { env });
  }
  if (optional.length > 0) {
    log(`installing ${optional.join(' ')} with apt-get (optional: its suite skips without it)`);
    // The package would start a system nginx on port 80 that stays running; the tests start their own
    // in the foreground on free loopback ports. policy-rc.d (exit 101) tells the package not to start it.
    const policy = '/usr/sbin/policy-rc.d';
    const ownPolicy = !fs.existsSync(policy);
    if (ownPolicy)
      fs.writeFileSync(policy, '#!/bin/sh\n# written by pageworks setup while installing nginx\nexit 101\n', { mode: 0o755 });
    try {
      const install = (pkg) =>
        spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
          cwd: root,
          stdio: ['ignore', 'inherit', 'inherit'],
          env,
        }).status === 0;
      if (!install('nginx-light') && !install('nginx')) log('could not install nginx; its suites skip');
    } finally {
      if (ownPolicy) fs.rmSync(policy, { force: true });
    }
  }
}
if (findChromium()) {
  try {
    const version = execFileSync(findChromium(), ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    log(`renders on ${browserBuild(findChromium())} (${findChromium()}): ${version}`);
  } catch {
    log(`chromium at ${findChromium()} did not report a version`);
  }
}
