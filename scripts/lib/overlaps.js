// Run in a copy of an icbench report by scripts/report-check (issue #29):
// every pair of text labels of one figure whose boxes, as Chromium lays
// them out, overlap by more than a pixel each way, and every label that
// lies over a data mark of its figure (a marker, an error bar, a bar),
// written one per line into <pre id="overlaps"> (empty when none do).
(function () {
  const out = [];
  const overlap = (a, b) => [
    Math.min(a.right, b.right) - Math.max(a.left, b.left),
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top),
  ];
  for (const svg of document.querySelectorAll("svg.figure")) {
    const boxes = [];
    for (const t of svg.querySelectorAll("text")) {
      const text = t.textContent.trim();
      const b = t.getBoundingClientRect();
      if (text && b.width > 0 && b.height > 0) boxes.push([text, b]);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [w, h] = overlap(boxes[i][1], boxes[j][1]);
        if (w > 1 && h > 1) {
          out.push(svg.id + ": \"" + boxes[i][0] + "\" and \"" + boxes[j][0] + "\" (" +
            w.toFixed(1) + " × " + h.toFixed(1) + " px)");
        }
      }
    }
    for (const m of svg.querySelectorAll(".point, .ci, .bar")) {
      const b = m.getBoundingClientRect();
      for (const [text, a] of boxes) {
        const [w, h] = overlap(a, b);
        if (w > 1 && h > 1) {
          out.push(svg.id + ": \"" + text + "\" over a " + m.getAttribute("class") + " (" +
            w.toFixed(1) + " × " + h.toFixed(1) + " px)");
        }
      }
    }
  }
  const pre = document.createElement("pre");
  pre.id = "overlaps";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
