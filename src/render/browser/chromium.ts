/**
 * Launching Debian's Chromium for rendering, and the process-level housekeeping around it
 * (killing its whole process group, measuring its memory).
 */
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type CDPSession } from 'puppeteer-core';
import { scratchDirSync } from '../../scratch-dirs.js';
import { type BrowserBuild, browserBuild, CHROMIUM_CANDIDATES, chromiumExecutable } from './chromium-executable.js';

/** CHROMIUM_PATH when set, else the first candidate that exists, else Debian's path (the error then names it). */
export function findChromium({
  configured,
  exists = fs.existsSync,
}: {
  configured?: string;
  exists?: (file: string) => boolean;
} = {}): string {
  if (configured) return configured;
  return CHROMIUM_CANDIDATES.find((file) => exists(file)) ?? CHROMIUM_CANDIDATES[0];
}

/** A launched Chromium with the process id of its group leader and its private profile directory. */
export interface LaunchedChromium {
  browser: Browser;
  /** A DevTools session on the browser itself, for what puppeteer's Browser does not offer (render-slot pages). */
  client: CDPSession;
  pid: number;
  userDataDir: string;
  /** The binary started (Debian's launcher scripts resolved to the binary they run). */
  executable: string;
  /** The headless shell or the full browser. */
  build: BrowserBuild;
  /** What the browser reports, e.g. "HeadlessChrome/156.0.8078.108". */
  version: string;
}

/**
 * Chromium switches: quiet, headless, and no way to reach the network except the per-context proxy.
 * Features named in `enabled` are left out of the disabled list (puppeteer merges every
 * `--disable-features` into one list, and Chromium lets a disabled feature win over an enabled one).
 */
export function chromiumArgs(build: BrowserBuild = 'chromium', enabled: readonly string[] = []): string[] {
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-breakpad',
    '--disable-dev-shm-usage',
    '--mute-audio',
    '--hide-scrollbars',
    // Every render context gets its own loopback proxy; anything that escapes it hits a closed port.
    '--proxy-server=http://127.0.0.1:9',
    '--proxy-bypass-list=<-loopback>',
    // Chromium never resolves a host name itself: only the egress proxy does (pinned, through net/policy).
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    // No --disable-threaded-compositing: it saves CPU per render, but headless Chromium then produces no
    // frames, so requestAnimationFrame callbacks never run and a chart drawn in one never prints.
    // No mDNS announcements for WebRTC host candidates (UDP is off anyway, see writeProfile). The omnibox
    // popups are browser UI that headless Chromium still builds per context: two renderers, twice the cost.
    // RenderDocument gives every cross-document navigation a new RenderFrameHost (new frame, widget and
    // compositor): ~25 ms of CPU on each about:blank reset; without it the frame host is reused, while
    // the document, its window and its origin are new either way (isolation tests). The spare renderer
    // is kept for one browser context: with a context per render slot, every reset killed the spare of
    // another context and forked a new one (a process launch per render that nothing used).
    `--disable-features=${[
      'WebRtcHideLocalIpsWithMdns',
      'MediaRouter',
      'OptimizationHints',
      'Translate',
      'WebUIOmniboxPopup',
      'WebUIOmniboxAimPopup',
      'RenderDocument',
      'SpareRendererForSitePerProcess',
    ]
      .filter((feature) => !enabled.includes(feature))
      .join(',')}`,
  ];
  // The headless shell reads no profile preferences (writeProfile's WebRTC policy is the full browser's);
  // it takes the same policy from this switch, which the full browser ignores.
  args.push('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
  // A document's window.print() opens the full browser's print preview, which holds the page's print
  // manager: Page.printToPDF then failed with "Page is already being printed" (a 500). Without the preview,
  // window.print() returns and prints nothing, as it does on the headless shell.
  args.push('--disable-print-preview');
  // The shell hints glyph outlines fully unless told otherwise; the full browser follows fontconfig, which
  // asks for slight hinting on Debian. Full hinting rounds some fonts' advances (Arabic, Hebrew, Devanagari
  // in DejaVu and Noto), so the same paragraph broke its lines elsewhere on the shell.
  if (build === 'chromium-headless-shell') args.push('--font-render-hinting=slight');
  // The shell writes every console message and uncaught error of a document to stderr, whole, and puppeteer
  // keeps the last 1,000 lines of it in this process: a document logging 100 KB messages held 250 MB of the
  // server's heap. Only fatal lines (why the browser died) are written now.
  if (build === 'chromium-headless-shell') args.push('--enable-logging=stderr', '--log-level=3');
  // A print has no use for new windows, and a window a document opened hurt the render it came from: on
  // the shell it opened in the document's own renderer, and 19 of 540 renders of a document that opened
  // one (two cores under load) never finished loading two of its cross-site frames (their 403 committed,
  // the body never read), so its load event never came; on full Chromium the opener stopped getting
  // animation frames. The shell refuses new windows with this switch; full Chromium ignores it and
  // keeps its popup blocker instead (launchChromium). Either way window.open() returns null.
  if (build === 'chromium-headless-shell') args.push('--block-new-web-contents');
  // Render slots on the shell get frames only when a render sends them (browser/frames.ts); Chromium takes
  // frames from the client only in this compositor mode.
  if (build === 'chromium-headless-shell') args.push('--run-all-compositor-stages-before-draw');
  // The sandbox needs user namespaces that root does not get; only then go without it.
  if (typeof process.getuid === 'function' && process.getuid() === 0) args.push('--no-sandbox');
  return args;
}

/**
 * A fresh profile whose preferences keep WebRTC off non-proxied UDP: the command-line switch for this is
 * ignored by current Chromium, the profile preference is not (checked by the security suite).
 */
function writeProfile(): string {
  const dir = scratchDirSync('chromium');
  fs.mkdirSync(path.join(dir, 'Default'));
  const prefs = {
    webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false },
  };
  fs.writeFileSync(path.join(dir, 'Default', 'Preferences'), JSON.stringify(prefs));
  return dir;
}

/**
 * The longest one protocol command may take when renders last up to `renderTimeoutMs`: a document's
 * ready promise is awaited in one command, so the limit must outlast the render's own deadline (which
 * answers RENDER_TIMEOUT); a fixed 120 s failed renders allowed 10 minutes with "Runtime.evaluate
 * timed out" instead.
 */
export function protocolTimeoutMs(renderTimeoutMs: number): number {
  return Math.max(120_000, renderTimeoutMs + 30_000);
}

/** Launches Chromium (its own process group) with a throw-away profile. */
export async function launchChromium(
  executablePath = findChromium(),
  extraArgs: string[] = [],
  renderTimeoutMs = 30_000,
): Promise<LaunchedChromium> {
  const userDataDir = writeProfile();
  const executable = chromiumExecutable(executablePath) ?? executablePath;
  const build = browserBuild(executable);
  try {
    const browser = await puppeteer.launch({
      executablePath: executable,
      // The shell only has the old headless mode (`--headless`); `true` asks the full browser for `--headless=new`.
      headless: build === 'chromium-headless-shell' ? 'shell' : true,
      userDataDir,
      args: [...chromiumArgs(build, enabledFeatures(extraArgs)), ...extraArgs],
      // The pool decides when Chromium goes away; signals reach the whole app, which closes it in order.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: protocolTimeoutMs(renderTimeoutMs),
      // Over a pipe, Chromium shuts down by itself when this process dies (even by SIGKILL), so a crashed
      // server or test runner leaves no orphan browser behind; a WebSocket connection would not.
      pipe: true,
      // Puppeteer turns full Chromium's popup blocker off; on, it refuses every window a document opens
      // (renders have no user gesture), as --block-new-web-contents does on the shell (chromiumArgs).
      ignoreDefaultArgs: ['--disable-popup-blocking'],
    });
    const pid = browser.process()?.pid;
    if (pid === undefined) throw new Error('Chromium started without a process id');
    // The shell opens a tab at start (puppeteer asks for about:blank) that nothing renders in, and its
    // compositor draws it at 60 frames a second for as long as the browser lives: 60 ms of CPU a second
    // across the display, browser and renderer threads with nothing to do, 0 without it. The shell stays up
    // with no tab open; full Chromium spends 2–5 ms a second on it and may quit with its last tab, so it keeps it.
    // A tab that will not close costs CPU, not renders: the launch goes on.
    if (build === 'chromium-headless-shell') {
      await Promise.all((await browser.pages()).map((page) => page.close().catch(() => undefined)));
    }
    const [client, version] = await Promise.all([browser.target().createCDPSession(), browser.version()]);
    return { browser, client, pid, userDataDir, executable, build, version };
  } catch (err) {
    fs.rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
}

/** The features an `--enable-features=` switch among `args` names. */
function enabledFeatures(args: readonly string[]): string[] {
  return args.flatMap((arg) => (arg.startsWith('--enable-features=') ? arg.slice('--enable-features='.length).split(',') : []));
}

/** Ids of the live processes whose process group is `pgid` (Linux /proc). */
export function processGroupMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') found.push(Number(entry));
  }
  return found;
}

/** Resident memory of a whole process group in bytes (renderers, GPU and utility processes included). */
export function processGroupRss(pgid: number): number {
  let pages = 0;
  for (const pid of processGroupMembers(pgid)) {
    try {
      pages += Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    } catch {
      // The process ended between listing and reading: it holds no memory any more.
    }
  }
  return pages * 4096;
}

/** SIGKILLs every process of the group; Chromium's zygotes and renderers otherwise outlive a killed parent. */
export function killProcessGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone, which is what we want.
  }
}

/** Closes a launched Chromium gracefully (bounded), then makes sure no process of its group is left. */
export async function shutdownChromium(launched: LaunchedChromium, graceMs = 3000): Promise<void> {
  const { browser, pid, userDataDir } = launched;
  if (browser.connected) {
    await Promise.race([browser.close().catch(() => undefined), new Promise((r) => setTimeout(r, graceMs).unref())]);
  }
  killProcessGroup(pid);
  // A SIGKILLed group can take seconds to be gone on a loaded machine; return only once it is (at most 5 s).
  for (let i = 0; i < 250 && processGroupMembers(pid).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function readStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses; fields resume after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}
