// veilbot admin console: streamed exports with their size shown when done.
// Without this script the export links still download; with it the page shows progress.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var status = document.getElementById("export-status");
  document.querySelectorAll("a.export").forEach(function (link) {
    link.addEventListener("click", function (event) {
      if (!window.fetch || !window.ReadableStream || !status) { return; }
      event.preventDefault();
      download(link, status);
    });
  });
});

function human(bytes) {
  var units = ["B", "KB", "MB", "GB"], i = 0;
  while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i += 1; }
  return (i === 0 ? bytes : bytes.toFixed(1)) + " " + units[i];
}

async function download(link, status) {
  status.textContent = "Exporting…";
  status.dataset.state = "running";
  try {
    var response = await fetch(link.href, { credentials: "same-origin" });
    if (!response.ok) { throw new Error("HTTP " + response.status); }
    var reader = response.body.getReader(), parts = [], size = 0;
    for (;;) {
      var step = await reader.read();
      if (step.done) { break; }
      parts.push(step.value);
      size += step.value.length;
      status.textContent = "Exporting… " + human(size);
    }
    var blob = new Blob(parts, { type: response.headers.get("Content-Type") || "application/octet-stream" });
    var save = document.createElement("a");
    save.href = URL.createObjectURL(blob);
    save.download = link.dataset.filename || "veilbot-audit";
    document.body.appendChild(save);
    save.click();
    save.remove();
    status.textContent = "Done: " + link.dataset.filename + ", " + human(size) + " (" + size + " bytes)";
    status.dataset.state = "done";
    status.dataset.bytes = String(size);
  } catch (err) {
    status.textContent = "Export failed (" + err.message + "): nothing was saved.";
    status.dataset.state = "failed";
  }
}
