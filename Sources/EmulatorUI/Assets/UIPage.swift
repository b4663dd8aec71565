/// The single HTML page of the UI; the script fills `<main>` with the view the path names.
enum UIPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Emulator UI</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
<header class="bar">
  <a class="brand" href="/" data-nav><img src="/assets/icon.svg" alt="" width="20" height="20"> Emulator UI</a>
  <nav>
    <a href="/" data-nav data-view="overview">Overview</a>
    <a href="/firestore" data-nav data-view="firestore">Firestore</a>
    <a href="/database" data-nav data-view="database">Realtime Database</a>
    <a href="/requests" data-nav data-view="requests">Requests</a>
    <a href="/logs" data-nav data-view="logs">Logs</a>
  </nav>
  <span id="project" class="muted"></span>
  <span id="token" class="token"></span>
</header>
<div id="notice" role="status" hidden></div>
<main id="view"><p class="muted">Loading…</p></main>
<noscript><p>The Emulator UI needs JavaScript.</p></noscript>
</body>
</html>
"""#

    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f6feb"/><path d="M9 22V10h14M9 16h10" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>
"""#
}
