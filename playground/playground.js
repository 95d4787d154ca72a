// The playground page: the editor, the controls and six tabs over the readings
// that topos, compiled to WebAssembly, answers for the program (the module's
// readings(program, options), see tools/play/playground_module.post.js). The
// picture's DOT text is laid out by Graphviz in WebAssembly (@viz-js/viz).
// body[data-state] says where the page is: loading, reading, ready or error.
'use strict';

const page = {
  source: document.getElementById('source'),
  gutter: document.getElementById('gutter'),
  mark: document.getElementById('mark'),
  target: document.getElementById('target'),
  observed: document.getElementById('observed'),
  numerics: document.getElementById('numerics'),
  controls: document.getElementById('controls'),
  error: document.getElementById('error'),
  summary: document.getElementById('summary'),
  tabs: Array.from(document.querySelectorAll('#tabs button')),
  text: document.getElementById('text'),
  picture: document.getElementById('picture'),
  drawing: document.getElementById('drawing'),
  dot: document.getElementById('dot'),
};

let topos = null;            // the WebAssembly module, once compiled
let viz = null;              // Graphviz, once compiled
let shown = null;            // the readings on display (the last that read)
let chosen = 'spec';         // the tab on display
let errorLine = 0;           // the line marked as wrong, 0 for none
let pending = 0;             // the timer of a read waiting for typing to pause
let drawnFor = null;         // the readings whose picture is drawn

function setState(state) {
  document.body.dataset.state = state;
}

// --- the editor ------------------------------------------------------------

function lineHeight() {
  return parseFloat(getComputedStyle(page.gutter).lineHeight);
}

function drawGutter() {
  const count = page.source.value.split('\n').length;
  const numbers = [];
  for (let line = 1; line <= count; ++line) {
    numbers.push(line === errorLine ? `<span class="error-line">${line}</span>` : String(line));
  }
  page.gutter.innerHTML = numbers.join('\n') + '\n';
  page.gutter.scrollTop = page.source.scrollTop;
  placeMark();
}

function placeMark() {
  if (errorLine === 0) {
    page.mark.hidden = true;
    return;
  }
  const top = page.source.offsetTop + parseFloat(getComputedStyle(page.source).paddingTop);
  page.mark.style.top = `${top + (errorLine - 1) * lineHeight() - page.source.scrollTop}px`;
  page.mark.hidden = false;
}

function markLine(line) {
  errorLine = line;
  page.mark.dataset.line = String(line);
  drawGutter();
}

// --- the readings ----------------------------------------------------------

function options() {
  return {
    target: page.target.value.trim(),
    observed: page.observed.value.trim(),
    numerics: page.numerics.value,
  };
}

function showError(error) {
  const where = error.line === null ? '' : ` (line ${error.line}, column ${error.column})`;
  page.error.textContent = error.message;
  page.error.dataset.line = error.line === null ? '' : String(error.line);
  page.error.title = `the program does not read${where}`;
  page.error.hidden = false;
  markLine(error.line === null ? 0 : error.line);
  setState('error');
}

function read() {
  clearTimeout(pending);
  if (topos === null) {
    return;
  }
  setState('reading');
  const answer = topos.readings(page.source.value, options());
  if (answer.error) {
    showError(answer.error);
    return;
  }
  page.error.hidden = true;
  page.error.textContent = '';
  markLine(0);
  shown = answer.readings;
  page.summary.textContent = shown.summary.trim();
  showTab(chosen);
}

function readSoon() {
  clearTimeout(pending);
  pending = setTimeout(read, 250);
}

// --- the tabs --------------------------------------------------------------

async function drawPicture() {
  if (drawnFor === shown) {
    return;
  }
  drawnFor = shown;
  page.dot.textContent = shown.picture;
  page.drawing.replaceChildren();
  try {
    if (viz === null) {
      viz = await Viz.instance();
    }
    page.drawing.replaceChildren(viz.renderSVGElement(shown.picture));
  } catch (failure) {
    page.drawing.textContent = `Graphviz could not lay the picture out: ${failure}`;
  }
}

async function showTab(name) {
  chosen = name;
  for (const tab of page.tabs) {
    tab.setAttribute('aria-selected', String(tab.dataset.reading === name));
  }
  const picture = name === 'picture';
  page.picture.hidden = !picture;
  page.text.hidden = picture;
  if (shown === null) {
    setState(errorLine === 0 ? 'loading' : 'error');
    return;
  }
  const state = page.error.hidden ? 'ready' : 'error';
  if (picture) {
    setState('reading');
    await drawPicture();
  } else {
    page.text.textContent = shown[name];
  }
  page.text.dataset.reading = name;
  setState(state);
}

// --- wiring ----------------------------------------------------------------

page.source.addEventListener('input', () => {
  drawGutter();
  readSoon();
});
page.source.addEventListener('scroll', () => {
  page.gutter.scrollTop = page.source.scrollTop;
  placeMark();
});
page.source.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    read();
  }
});
page.controls.addEventListener('submit', (event) => {
  event.preventDefault();
  read();
});
page.numerics.addEventListener('change', read);
for (const field of [page.target, page.observed]) {
  field.addEventListener('change', read);
}
for (const tab of page.tabs) {
  tab.addEventListener('click', () => showTab(tab.dataset.reading));
}

async function start() {
  setState('loading');
  const preloaded = await fetch('walkthrough.tp');
  page.source.value = preloaded.ok ? await preloaded.text() : '';
  drawGutter();
  topos = await createToposModule();
  read();
}

start().catch((failure) => {
  page.error.textContent = `The playground could not start: ${failure}`;
  page.error.hidden = false;
  setState('error');
});
