'use strict';
// an application's own page, drawn with the dashboard's helpers
window.ConvergeDashboard.page('hello', async (ui) => {
  const r = await ui.data();
  return [ui.el('h2', {}, 'Hello'), ui.el('p', { id: 'hello' }, 'Hello, operator ' + r.operator)];
});
