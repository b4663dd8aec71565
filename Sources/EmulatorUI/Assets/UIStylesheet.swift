/// The UI's one stylesheet: system fonts, a light and a dark scheme, no images.
enum UIStylesheet {
    static let css = #"""
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #667085; --line: #e3e6eb;
  --accent: #1f6feb; --accent-soft: #e8f0fe; --danger: #c9372c; --ok: #1a7f37; --warn: #9a6700;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1115; --panel: #171a21; --text: #e6e8ec; --muted: #98a2b3; --line: #2a2f3a;
    --accent: #4c8dff; --accent-soft: #1b2a44; --danger: #ff6b60; --ok: #3fb950; --warn: #d29922; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--text); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.bar { display: flex; align-items: center; gap: 24px; padding: 0 20px; height: 48px; background: var(--panel); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
.brand { display: flex; align-items: center; gap: 8px; font-weight: 600; color: var(--text); }
.bar nav { display: flex; gap: 4px; flex: 1; }
.bar nav a { padding: 6px 12px; border-radius: 6px; color: var(--muted); }
.bar nav a.active { background: var(--accent-soft); color: var(--accent); }
.muted { color: var(--muted); }
.mono { font-family: var(--mono); font-size: 13px; }
main { padding: 20px; }
#notice { margin: 12px 20px 0; padding: 10px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); }
#notice.error { border-color: var(--danger); color: var(--danger); }
#notice.ok { border-color: var(--ok); color: var(--ok); }
h1 { font-size: 20px; margin: 0 0 16px; font-weight: 600; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0; font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 16px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 16px; display: flex; flex-direction: column; gap: 8px; }
.card .title { font-weight: 600; font-size: 16px; display: flex; align-items: center; gap: 8px; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: var(--muted); display: inline-block; }
.dot.up { background: var(--ok); } .dot.down { background: var(--danger); }
.toolbar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-bottom: 12px; }
.toolbar .grow { flex: 1; }
input, select, textarea, button { font: inherit; color: inherit; }
input, select, textarea { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 5px 8px; }
textarea { font-family: var(--mono); font-size: 13px; width: 100%; min-height: 90px; }
button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 5px 12px; cursor: pointer; }
button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--danger); }
button.icon { padding: 2px 7px; border: none; background: none; color: var(--muted); }
button.icon:hover { color: var(--accent); }
button.icon.danger:hover { color: var(--danger); }
button:disabled { opacity: .5; cursor: default; }
.columns { display: grid; grid-template-columns: minmax(180px, 1fr) minmax(220px, 1.2fr) minmax(320px, 2fr); border: 1px solid var(--line); border-radius: 8px; background: var(--panel); min-height: 420px; overflow: hidden; }
.column { border-right: 1px solid var(--line); display: flex; flex-direction: column; min-width: 0; }
.column:last-child { border-right: none; }
.column header { display: flex; align-items: center; gap: 6px; padding: 10px 12px; border-bottom: 1px solid var(--line); min-height: 44px; }
.column header .name { font-family: var(--mono); font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; }
.list { overflow-y: auto; max-height: 65vh; }
.list a, .list .row { display: block; padding: 6px 12px; font-family: var(--mono); font-size: 13px; color: var(--text); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.list a:hover { background: var(--bg); text-decoration: none; }
.list a.selected { background: var(--accent-soft); color: var(--accent); }
.list .more { padding: 8px 12px; }
.empty { padding: 12px; color: var(--muted); }
.crumbs { font-family: var(--mono); display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.crumbs a { padding: 1px 4px; border-radius: 4px; }
.fields { padding: 6px 0; overflow: auto; max-height: 65vh; }
.field { padding: 3px 12px; font-family: var(--mono); font-size: 13px; display: flex; align-items: baseline; gap: 6px; }
.field .key { color: var(--text); }
.field .value { word-break: break-all; }
.field .type { color: var(--muted); font-size: 11px; }
.field .actions { margin-left: auto; visibility: hidden; white-space: nowrap; }
.field:hover .actions { visibility: visible; }
.nested { padding-left: 18px; border-left: 1px dashed var(--line); margin-left: 16px; }
.t-string { color: #0a7f5a; } .t-number { color: #8250df; } .t-boolean, .t-null { color: #bc4c00; }
.t-timestamp, .t-geopoint, .t-reference, .t-bytes, .t-special { color: #0550ae; }
@media (prefers-color-scheme: dark) { .t-string { color: #56d4a4; } .t-number { color: #c297ff; } .t-boolean, .t-null { color: #ffa657; } .t-timestamp, .t-geopoint, .t-reference, .t-bytes, .t-special { color: #79c0ff; } }
form.editor { display: grid; gap: 8px; padding: 12px; margin: 8px 12px; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); }
form.editor .row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
form.editor .row > input[type=text], form.editor .row > textarea { flex: 1; }
.error-text { color: var(--danger); white-space: pre-wrap; }
.query { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin-bottom: 12px; display: grid; gap: 8px; }
.query code { font-family: var(--mono); font-size: 12px; color: var(--muted); white-space: pre-wrap; }
.tree { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px 0; font-family: var(--mono); font-size: 13px; overflow: auto; }
.node > .line { display: flex; align-items: baseline; gap: 6px; padding: 2px 12px; }
.node > .line:hover { background: var(--bg); }
.node > .line .actions { visibility: hidden; margin-left: 8px; }
.node > .line:hover .actions { visibility: visible; }
.node > .children { padding-left: 20px; margin-left: 17px; border-left: 1px dashed var(--line); }
.toggle { width: 16px; text-align: center; cursor: pointer; color: var(--muted); user-select: none; }
.flash { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: #fff3b0; } to { background: transparent; } }
table.logs { width: 100%; border-collapse: collapse; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; font-family: var(--mono); font-size: 12.5px; }
table.logs td { padding: 3px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.logs td.time { color: var(--muted); white-space: nowrap; }
table.logs td.level { white-space: nowrap; }
.lv-warning { color: var(--warn); } .lv-error { color: var(--danger); } .lv-success { color: var(--ok); } .lv-debug { color: var(--muted); }
.split { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; align-items: start; }
.split .scroll { max-height: 72vh; overflow: auto; border-radius: 8px; }
table.requests th { text-align: left; padding: 4px 10px; color: var(--muted); font-weight: 500; position: sticky; top: 0; background: var(--panel); border-bottom: 1px solid var(--line); }
table.requests tr.req { cursor: pointer; }
table.requests tr.req:hover { background: var(--bg); }
table.requests tr.selected { background: var(--accent-soft); }
table.requests td.path { word-break: break-all; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 11.5px; font-family: var(--mono); }
.badge.o-allow { background: #dafbe1; color: #116329; } .badge.o-deny { background: #ffebe9; color: #a40e26; }
.badge.o-error { background: #fff1e5; color: #953800; } .badge.o-owner { background: #ddf4ff; color: #0550ae; }
.request-detail { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; max-height: 72vh; overflow: auto; }
.request-detail h2 { font-size: 15px; margin: 4px 0; word-break: break-all; } .request-detail h3 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); }
pre.json, pre.rules-source { font-family: var(--mono); font-size: 12px; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; overflow: auto; max-height: 320px; margin: 0; }
pre.rules-source .src { white-space: pre; } pre.rules-source .ln { display: inline-block; width: 3em; color: var(--muted); user-select: none; }
pre.rules-source .m-allow { background: #dafbe1; } pre.rules-source .m-deny { background: #ffebe9; } pre.rules-source .m-error { background: #fff1e5; } pre.rules-source .m-mixed { background: #fff8c5; }
@media (prefers-color-scheme: dark) { pre.rules-source .m-allow { background: #12361f; } pre.rules-source .m-deny { background: #4a1519; } pre.rules-source .m-error { background: #4a2a10; } pre.rules-source .m-mixed { background: #3d3410; } }
.coverage-links a { margin-left: 10px; }
.snapshots { margin-top: 16px; display: grid; gap: 8px; } .snapshots .row { display: flex; gap: 8px; flex-wrap: wrap; }
.token { display: flex; align-items: center; gap: 6px; margin-left: 12px; }
.token.user button { border-color: var(--warn); color: var(--warn); }
dialog { border: 1px solid var(--line); border-radius: 10px; background: var(--panel); color: var(--text); min-width: 420px; }
dialog::backdrop { background: rgba(0,0,0,.35); }
"""#
}
