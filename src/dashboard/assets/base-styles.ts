/**
 * The base of the dashboard's stylesheet: the colour and size tokens every other part uses, the elements'
 * defaults, and the frame of every page (top bar and navigation, main column, page head, cards). It comes
 * first so that every later part can build on it and override it.
 */

/** Tokens, element defaults and the page frame: the first part of the stylesheet. */
export const BASE_STYLES = `
:root {
  --bg: #f5f6f8; --surface: #fff; --text: #17191e; --muted: #545b67; --border: #dcdfe5;
  --accent: #2347c9; --accent-hover: #1a3aa8; --accent-soft: #eef2fd;
  --danger: #b42318; --danger-soft: #fef3f2; --ok: #067647; --ok-soft: #ecfdf3;
  --warn: #8a4b00; --warn-soft: #fffaeb; --code-bg: #10141c; --code-text: #e4e7ec;
  --radius: 10px; --mono: ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text); line-height: 1.5; min-height: 100vh; display: flex; flex-direction: column;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Liberation Sans", Arial, sans-serif;
}
a { color: var(--accent); }
a:hover { color: var(--accent-hover); }
:focus-visible { outline: 3px solid #6d8ef5; outline-offset: 2px; border-radius: 4px; }
h1 { font-size: 26px; line-height: 1.25; margin: 0 0 6px; letter-spacing: -0.01em; }
h2 { font-size: 18px; margin: 0; }
h3 { font-size: 15px; margin: 20px 0 8px; }
p { margin: 0 0 12px; }
code { font-family: var(--mono); font-size: 0.92em; background: #eceef2; padding: 1px 5px; border-radius: 4px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 12px; top: 12px; background: var(--surface); padding: 8px 12px; z-index: 10; }

.topbar { background: var(--surface); border-bottom: 1px solid var(--border); }
.topbar-inner { max-width: 1080px; margin: 0 auto; padding: 0 24px; min-height: 60px; display: flex; align-items: center; gap: 28px; }
.brand { display: flex; align-items: center; gap: 9px; font-weight: 700; font-size: 17px; color: var(--text); text-decoration: none; }
.brand svg { display: block; }
.nav { display: flex; flex-wrap: wrap; gap: 4px; flex: 1; min-width: 0; }
.nav a { color: var(--muted); text-decoration: none; padding: 7px 12px; border-radius: 7px; font-weight: 500; white-space: nowrap; }
.nav a:hover { background: var(--bg); color: var(--text); }
.nav a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.who { display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 14px; min-width: 0; }
.who span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.who form { margin: 0; }

main { max-width: 1080px; width: 100%; margin: 0 auto; padding: 32px 24px 64px; flex: 1; }
.page-head { display: flex; align-items: flex-end; justify-content: space-between; gap: 16px; margin-bottom: 24px; }
.lead { color: var(--muted); margin: 0; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 24px; margin-bottom: 24px; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04); }
.card-head { display: flex; align-items: center; justify-content: space-between; gap: 8px 16px; margin-bottom: 16px; flex-wrap: wrap; }
.card > h2 { margin-bottom: 10px; }
.card-head p { margin: 2px 0 0; color: var(--muted); font-size: 14px; }
.service-title { display: flex; align-items: center; gap: 10px; }
.badge { display: inline-block; font: 600 12px/1 var(--mono); padding: 5px 7px; border-radius: 6px; background: var(--accent-soft); color: var(--accent); }
.muted { color: var(--muted); }
.small { font-size: 13px; }`;
