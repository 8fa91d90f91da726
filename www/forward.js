// Old links to paper A's page were index.html#spec=…: forward them, with the same spec (and
// query), to lp.html, before anything else loads; a lesson link goes to its paper's page.
(() => {
  const pages = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };
  const h = location.hash;
  if (h.startsWith('#spec=')) location.replace(`lp.html${location.search}${h}`);
  const m = h.match(/^#lesson=([a-z])(&|$)/);
  if (m && pages[m[1]]) location.replace(`${pages[m[1]]}${location.search}${h}`);
})();
