// The provisioning service's own page on the dashboard: every tenant's sites, their state, failure
// code, the resources the ledger holds for each and their flows. Drawn with the dashboard's helpers
// (DOM calls and textContent only: what the database holds is shown as text, never run as markup).
'use strict';

window.ConvergeDashboard.page('sites', async (ui) => {
  const { el, table, state, time } = ui;
  const r = await ui.data();
  const counts = Object.entries(r.states || {});
  return [
    el('h2', {}, 'Sites'),
    el('div', { class: 'card', 'data-testid': 'sites' }, el('h3', {}, 'Sites by state'),
      counts.length === 0 ? el('p', { class: 'muted' }, 'none') :
        table(['state', 'count'], counts.map(([k, v]) => [state(k), el('span', { 'data-count': k }, String(v))]))),
    el('p', { class: 'muted' }, 'Every tenant\'s sites, the newest first, with the resources the ledger holds for each.'),
    ui.filters([['tenant_id', 'Tenant id'], ['state', 'State']]),
    r.items.length === 0 ? el('p', {}, 'No sites.') :
      table(['id', 'tenant', 'subdomain', 'state', 'subscription', 'failure', 'resources', 'flow', 'updated'], r.items.map((st) => [
        String(st.id), st.tenant + ' (' + st.tenant_id + ')', st.subdomain, state(st.state),
        el('span', { 'data-subscription': st.subscription }, st.subscription,
          st.subscription === 'trial' && st.trial_ends_at ? [' until ', time(st.trial_ends_at)] : ''),
        st.failure_code ? el('span', { title: st.failure || '' }, st.failure_code) : '',
        st.resources.length === 0 ? el('span', { class: 'muted' }, 'none') :
          el('ul', { class: 'plain' }, st.resources.map((e) => el('li', {}, e.kind + ' ' + e.natural_key + ' ', state(e.state),
            e.leaf_id ? ' ' + e.leaf_id : ''))),
        el('span', {}, st.provision_flow_id ? el('a', { href: '#flow/' + st.provision_flow_id }, 'provision ' + st.provision_flow_id) : '',
          st.teardown_flow_id ? [' ', el('a', { href: '#flow/' + st.teardown_flow_id }, 'teardown ' + st.teardown_flow_id)] : ''),
        time(st.updated_at)]), (i) => ({ 'data-site': r.items[i].id })),
    ui.olderLink(r.items, r.page, 'Older sites'),
  ];
});
