// Live activity: append each call the server streams (server-sent events) to the feed table.
// No inline script (the console's CSP forbids it); the stream URL comes from data-stream.
(function () {
  "use strict";
  var table = document.getElementById("live-feed");
  var status = document.getElementById("live-status");
  if (!table || !window.EventSource) {
    if (status) { status.textContent = "live updates unavailable in this browser"; }
    return;
  }
  var body = table.tBodies[0];
  var MAX_ROWS = 200;

  function cell(row, text) {
    var td = document.createElement("td");
    td.textContent = text;  // textContent: log values never become markup
    row.appendChild(td);
    return td;
  }

  function add(item) {
    var row = document.createElement("tr");
    row.className = item.ok ? "call fresh" : "call failed fresh";
    row.setAttribute("data-verb", item.verb);
    var when = document.createElement("time");
    when.setAttribute("datetime", item.ts);
    when.setAttribute("title", item.time_title || "");
    when.textContent = item.time || item.ts;  // worded by the server (console/times.py)
    cell(row, "").appendChild(when);
    cell(row, item.verb);
    cell(row, item.caller);
    cell(row, item.transport);
    cell(row, item.ok ? "ok" : "error");
    cell(row, item.latency_ms === null || item.latency_ms === undefined ? "" : item.latency_ms + " ms");
    body.insertBefore(row, body.firstChild);
    while (body.rows.length > MAX_ROWS) { body.deleteRow(body.rows.length - 1); }
  }

  var source = new EventSource(table.getAttribute("data-stream"));
  source.addEventListener("open", function () {
    status.textContent = "live";
    table.setAttribute("data-connected", "true");
  });
  source.addEventListener("error", function () {
    status.textContent = "reconnecting…";
    table.setAttribute("data-connected", "false");
  });
  source.addEventListener("call", function (event) {
    try { add(JSON.parse(event.data)); } catch (e) { /* a malformed event: skip it */ }
  });
  window.addEventListener("pagehide", function () { source.close(); });
})();
