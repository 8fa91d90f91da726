// Old links to paper A's page were index.html#spec=…: forward them, with the same spec (and
// query), to lp.html, before anything else loads.
if (/^#(spec|lesson)=/.test(location.hash)) location.replace(`lp.html${location.search}${location.hash}`);
