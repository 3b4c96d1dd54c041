// The operators' dashboard: exchanges the operator token once for an HttpOnly session cookie
// (POST <base>/session), keeps only the session's CSRF token, in memory, reads <base>/api/* with
// the cookie, and redraws the current view every few seconds. An application's own pages register
// with ConvergeDashboard.page(name, render) from their scripts. Everything is built with DOM calls and textContent
// (no HTML parsing of strings): what the database holds (errors, keys) is shown as text, never run as markup.
'use strict';

(function () {
  const POLL_MS = 2000;
  // where the dashboard is mounted (the page carries it): every request goes below it
  const BASE = document.documentElement.dataset.base || '';
  const API = BASE + '/api';
  // the session's CSRF token: sent with every request that changes something; never stored
  let csrf = null;
  let timer = null;
  let generation = 0;
  let shownView = null;

  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = v;
      else if (k.startsWith('on')) node.addEventListener(k.substring(2), v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const state = (s) => el('span', { class: 'state state-' + s, 'data-state': s }, s);
  const time = (iso) => iso ? el('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString()) : '';

  function table(headers, rows, rowAttrs) {
    return el('div', { class: 'scroll' }, el('table', {},
      el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.map((cells, i) => el('tr', rowAttrs ? rowAttrs(i) : {},
        cells.map((c) => typeof c === 'number' ? el('td', { class: 'num' }, String(c)) : el('td', {}, c)))))));
  }

  class Refused extends Error {
    constructor(status, detail) { super(detail); this.status = status; }
  }

  async function get(path) {
    const r = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (r.status === 401 || r.status === 403) {
      throw new Refused(r.status, r.status === 401 ? 'The session has ended: log in again.' : 'This session is not an operator\'s.');
    }
    if (!r.ok) {
      let detail = 'HTTP ' + r.status;
      try { detail = (await r.json()).detail || detail; } catch (e) { /* not JSON */ }
      throw new Error(detail);
    }
    return r.json();
  }

  async function post(path, body) {
    const r = await fetch(path, { method: 'POST', credentials: 'same-origin', body: JSON.stringify(body), headers: {
      'X-CSRF-Token': csrf || '', 'Content-Type': 'application/json', Accept: 'application/json' } });
    let answer = {};
    try { answer = await r.json(); } catch (e) { /* not JSON */ }
    if (r.status === 401 || r.status === 403) throw new Refused(r.status, answer.detail || 'Refused.');
    if (!r.ok) throw new Error(answer.detail || 'HTTP ' + r.status);
    return answer;
  }

  // Asks the person to confirm an action in a modal dialog, and why when the action records a reason.
  // Resolves to { reason, ...read() }, or null when the person goes back (button or Escape).
  // `extra`: more fields, shown above the reason; `read()` returns their values, or throws an Error saying what is missing.
  function ask({ title, text, ok, danger = false, reason = true, extra = null, read = () => ({}) }) {
    const d = $('ask');
    $('ask-title').textContent = title;
    $('ask-text').textContent = text || '';
    $('ask-extra').replaceChildren(...(extra ? [extra] : []));
    $('ask-why').hidden = !reason;
    $('ask-reason').value = '';
    $('ask-error').textContent = '';
    $('ask-ok').textContent = ok;
    $('ask-ok').className = danger ? 'danger' : '';
    return new Promise((resolve) => {
      const done = (value) => {
        $('ask-ok').onclick = null;
        $('ask-cancel').onclick = null;
        d.onclose = null;
        if (d.open) d.close();
        resolve(value);
      };
      $('ask-ok').onclick = () => {
        let values;
        try { values = read(); } catch (e) { $('ask-error').textContent = e.message; return; }
        const why = $('ask-reason').value.trim();
        if (reason && !why) {
          $('ask-error').textContent = 'Say why: the reason is recorded with the action.';
          $('ask-reason').focus();
          return;
        }
        done(Object.assign({ reason: why }, values));
      };
      $('ask-cancel').onclick = () => done(null);
      d.onclose = () => done(null); // Escape
      d.showModal();
      (reason ? $('ask-reason') : $('ask-cancel')).focus();
    });
  }

  // dark or light: the system's choice until the person picks one here (kept in this browser)
  function applyTheme(choice) {
    const root = document.documentElement;
    if (choice) root.dataset.theme = choice; else delete root.dataset.theme;
    const dark = choice ? choice === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches;
    $('theme').textContent = dark ? 'Light' : 'Dark';
    $('theme').setAttribute('aria-pressed', String(dark));
  }

  // orphans deleted from this page, shown as such until the next scan no longer lists them
  const deleted = new Set();

  async function deleteOrphan(o) {
    const go = await ask({ title: 'Delete ' + o.kind + ' ' + o.natural_key + ' at its leaf?',
      text: 'Leaf id ' + o.leaf_id + ', owner ' + o.subject + '. No ledger entry owns it; this cannot be undone.',
      ok: 'Delete at the leaf', danger: true, reason: false });
    if (go === null) return;
    try {
      await post(API + '/orphans/delete', { kind: o.kind, leaf_id: o.leaf_id });
      deleted.add(o.kind + ' ' + o.leaf_id);
      $('notice').textContent = 'Deleted ' + o.kind + ' ' + o.natural_key + ' at the leaf.';
    } catch (e) {
      if (e instanceof Refused) { logout(e.message); return; }
      $('notice').textContent = 'Not deleted: ' + e.message;
    }
    draw();
  }

  // a job's action: the person confirms and says why (recorded with the action), then the engine's fenced path runs it
  async function jobAction(j, verb) {
    const reason = await ask(verb === 'retry'
      ? { title: 'Retry job ' + j.id + ' (' + j.kind + ') now?', text: 'It runs again from its first attempt.', ok: 'Retry now' }
      : { title: 'Cancel job ' + j.id + ' (' + j.kind + ')?', ok: 'Cancel the job', danger: true,
        text: 'It has not started; it will not run' + (j.flow_id ? ', and flow ' + j.flow_id + ' fails and compensates.' : '.') });
    if (reason === null) return;
    await send(API + '/jobs/' + encodeURIComponent(j.id) + (verb === 'retry' ? '/retry' : '/cancel'), reason);
  }

  // posts an action the person confirmed; the answer (what happened, or why nothing did) goes to the notice
  async function send(path, body) {
    try {
      const r = await post(path, body);
      $('notice').textContent = r.detail;
    } catch (e) {
      if (e instanceof Refused && e.status === 401) { logout(e.message); return; }
      $('notice').textContent = 'Not done: ' + e.message;
    }
    draw();
  }

  async function retryFlow(f) {
    const answer = await ask({ title: 'Retry flow ' + f.id + ' (' + f.kind + ' ' + f.subject + ')?',
      text: 'Its compensation runs again from where it stopped; the flow ends when that finishes.', ok: 'Retry the flow' });
    if (answer !== null) await send(API + '/flows/' + encodeURIComponent(f.id) + '/retry', answer);
  }

  function choice(name, options) {
    return el('fieldset', { class: 'choice' }, options.map(([value, label, more], i) => el('label', {},
      el('input', { type: 'radio', name, value, checked: i === 0 }), ' ' + label, more || null)));
  }

  function chosen(name) {
    const c = document.querySelector('#ask input[name="' + name + '"]:checked');
    if (!c) throw new Error('Choose one.');
    return c.value;
  }

  async function settleEntry(e) {
    const leaf = el('input', { id: 'settle-leaf-id', maxlength: 500, size: 24, 'aria-label': 'its id at the leaf' });
    const answer = await ask({ title: 'Settle ' + e.kind + ' ' + e.natural_key + ' (entry ' + e.id + ')?', ok: 'Settle',
      text: 'Look at the leaf first. The ledger takes your word: an entry that exists is adopted and confirmed, one that '
        + 'does not is released (a later run may create it).',
      extra: choice('settle-entry', [['exists', 'It exists at the leaf, under id ', leaf], ['absent', 'It does not exist at the leaf']]),
      read: () => {
        const exists = chosen('settle-entry') === 'exists';
        if (exists && !leaf.value.trim()) throw new Error('Give its id at the leaf.');
        return exists ? { exists: true, leaf_id: leaf.value.trim() } : { exists: false };
      } });
    if (answer !== null) await send(API + '/ledger/' + encodeURIComponent(e.id) + '/settle', answer);
  }

  async function settleToken(t) {
    const answer = await ask({ title: 'Settle token ' + t.id + ' of pool ' + t.pool + '?', ok: 'Settle',
      text: 'Its use started and nobody can tell whether it happened. Look at the service that uses it first.',
      extra: choice('settle-token', [['used', 'Its use happened: spend it'], ['unused', 'Its use did not happen: make it available again']]),
      read: () => ({ used: chosen('settle-token') === 'used' }) });
    if (answer !== null) await send(API + '/tokens/' + encodeURIComponent(t.id) + '/settle', answer);
  }

  // a recurring job: pause (its slots pass), resume (from its next slot), or run once now
  async function recurringAction(r, verb) {
    const what = {
      pause: { title: 'Pause ' + r.name + '?', ok: 'Pause', danger: true,
        text: 'Its slots pass without a run, on every node, until someone resumes it. A run already enqueued still runs.' },
      resume: { title: 'Resume ' + r.name + '?', ok: 'Resume',
        text: 'It runs again from its next slot; the slots that passed while it was paused are not run.' },
      run: { title: 'Run ' + r.name + ' now?', ok: 'Run now',
        text: 'One run is enqueued now, as if a slot fell now; its schedule goes on unchanged.' },
    }[verb];
    const reason = await ask(what);
    if (reason !== null) await send(API + '/recurring/' + encodeURIComponent(r.name) + '/' + verb, reason);
  }

  function jobActions(j) {
    if (j.state === 'failed' && !j.flow_id && !j.chain_id && !j.batch_id) {
      return el('button', { type: 'button', 'data-retry': j.id, onclick: () => jobAction(j, 'retry') }, 'Retry now');
    }
    if (j.state === 'available' && !j.kind.startsWith('converge.')) {
      return el('button', { type: 'button', class: 'danger', 'data-cancel': j.id, onclick: () => jobAction(j, 'cancel') }, 'Cancel');
    }
    return '';
  }

  // ---- views -------------------------------------------------------------------------------

  function counts(title, map, testId) {
    const entries = Object.entries(map || {});
    return el('div', { class: 'card', 'data-testid': testId },
      el('h3', {}, title),
      entries.length === 0 ? el('p', { class: 'muted' }, 'none') :
        table(['state', 'count'], entries.map(([k, v]) => [state(k), el('span', { 'data-count': k }, String(v))])));
  }

  function chart(series, bucketMinutes) {
    const ns = 'http://www.w3.org/2000/svg';
    const w = 12 * 14, h = 40;
    const max = Math.max(1, ...series.map((b) => b[0] + b[1]));
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('width', w);
    svg.setAttribute('height', h);
    svg.setAttribute('role', 'img');
    const total = series.reduce((a, b) => a + b[0] + b[1], 0);
    svg.setAttribute('aria-label', total + ' jobs finished in the last hour, per ' + bucketMinutes + ' minutes');
    series.forEach((b, i) => {
      const okH = Math.round((b[0] / max) * h), badH = Math.round((b[1] / max) * h);
      for (const [cls, y, hh] of [['ok', h - okH, okH], ['bad', h - okH - badH, badH]]) {
        if (hh <= 0) continue;
        const r = document.createElementNS(ns, 'rect');
        r.setAttribute('class', cls);
        r.setAttribute('x', i * 14);
        r.setAttribute('y', y);
        r.setAttribute('width', 11);
        r.setAttribute('height', hh);
        svg.append(r);
      }
    });
    return svg;
  }

  async function overview() {
    const [o, flows, orphanScan] = await Promise.all([get(API + '/overview'),
      get(API + '/flows?state=needs_attention'),
      get(API + '/orphans').catch((e) => { if (e instanceof Refused) throw e; return null; })]);
    const queues = o.queues.map((q) => el('div', { class: 'card', 'data-queue': q.queue },
      el('h3', {}, 'Queue ' + q.queue),
      // what waits, runs or failed, each a link to those jobs; succeeded jobs are counted per hour below
      Object.keys(q.states).length === 0 ? el('p', { class: 'muted' }, 'Nothing waiting, running or failed.') :
        table(['state', 'jobs'], Object.entries(q.states).map(([k, v]) => [
          el('a', { href: '#jobs?' + new URLSearchParams({ queue: q.queue, state: k }) }, state(k)), el('span', { 'data-count': k }, String(v))])),
      el('p', { class: 'muted' }, 'Last hour: ' + q.succeeded_last_hour + ' succeeded, ' + q.failed_last_hour + ' failed for good'),
      chart(q.throughput, o.bucket_minutes),
      el('p', {}, el('a', { href: '#history?' + new URLSearchParams({ queue: q.queue, span: '24h' }) }, 'History of ' + q.queue))));
    const n = o.this_node;
    return [
      flows.items.length === 0 ? null : el('section', { id: 'attention', 'aria-labelledby': 'attention-h' },
        el('h2', { id: 'attention-h' }, flows.items.length + ' flow(s) need a person'),
        flows.items.map((f) => el('div', { class: 'attention', 'data-flow': f.id },
          el('a', { href: '#flow/' + f.id }, f.kind + ' ' + f.subject + ' (flow ' + f.id + ')'), ': ',
          f.attention || f.failure_reason || 'see its timeline'))),
      el('h2', {}, 'Flows and the ledger'),
      el('div', { class: 'cards' },
        counts('Flows by state', o.flows, 'flows'),
        el('div', { class: 'card', 'data-testid': 'ledger' }, el('h3', {}, 'Ledger'),
          el('p', {}, el('a', { href: '#ledger' }, el('span', { 'data-count': 'uncertain' }, String(o.uncertain)), ' uncertain, ',
            String(o.long_claimed), ' claimed over ' + o.long_claimed_minutes + ' min')),
          table(['kind', 'states'], Object.entries(o.ledger).map(([k, m]) => [k,
            el('span', {}, Object.entries(m).map(([s, c]) => el('span', {}, state(s), ' ' + c + ' ')))]))),
        el('div', { class: 'card', 'data-testid': 'orphans' }, el('h3', {}, 'Orphans'),
          orphanScan === null ? el('p', { class: 'error' }, 'The orphans could not be read: see the Orphans page.') :
            !orphanScan.as_of ? el('p', { class: 'muted' }, 'The first scan has not finished yet.') :
            el('p', {}, el('a', { href: '#orphans' }, el('span', { 'data-count': 'orphans' }, String(orphanScan.items.length)),
              ' tagged as ours, ' + orphanScan.other_count + ' others'), el('br'), 'at the scan of ', time(orphanScan.as_of),
            orphanScan.complete ? null : el('span', { class: 'error', 'data-testid': 'orphans-incomplete' }, el('br'),
              orphanScan.leaves.filter((l) => !l.available).length + ' of ' + orphanScan.leaves.length
                + ' leaves could not be listed: their orphans are unknown, not none.'))),
        el('div', { class: 'card', 'data-testid': 'recurring' }, el('h3', {}, 'Recurring jobs'),
          o.recurring.length === 0 ? el('p', { class: 'muted' }, 'None declared.') :
            // in short: the Recurring page has the rest (last slot, who acted, the buttons)
            table(['job', 'next slot'], o.recurring.map((r) => [
              el('span', {}, el('a', { href: '#recurring' }, r.name), el('br'), el('small', { class: 'muted' }, r.schedule)),
              r.paused ? state('paused') : time(r.next_slot)]))),
        el('div', { class: 'card' }, el('h3', {}, 'This node since start'),
          table(['', ''], [['failed for good', n.failed], ['lease losses', n.lease_lost], ['rescued leases', n.rescued],
            ['retried', n.retried], ['died without an outcome', n.abandoned]]))),
      el('h2', {}, 'Queues'),
      el('div', { class: 'cards' }, queues.length ? queues : el('p', { class: 'muted' }, 'No jobs yet.')),
      el('p', { class: 'muted', id: 'as-of' }, 'Counts as of ', time(o.as_of)),
    ];
  }

  function filterForm(fields, onChange) {
    const params = new URLSearchParams(location.hash.split('?')[1] || '');
    return el('form', { class: 'filters', onsubmit: (e) => { e.preventDefault(); onChange(new FormData(e.target)); } },
      // a field with choices is a select (any, or one of them; a value from a link is kept among them);
      // a time a date-time field (UTC); the others free text
      fields.map(([name, label, choices, kind]) => el('label', {}, label, choices
        ? el('select', { name }, el('option', { value: '' }, 'any'),
          [...new Set([...choices, ...(params.get(name) ? [params.get(name)] : [])])]
            .map((c) => el('option', { value: c, selected: params.get(name) === c }, c)))
        : kind === 'time'
          ? el('input', { name, type: 'datetime-local', value: (params.get(name) || '').replace(/Z$/, '').slice(0, 16) })
          : el('input', { name, value: params.get(name) || '', size: kind === 'id' ? 8 : 14, maxlength: 200,
            inputmode: kind === 'id' ? 'numeric' : null }))),
      el('button', { type: 'submit' }, 'Filter'));
  }

  // "50 of 1,234": what a list shows beside how many match (counted up to a cap)
  function shownOf(n, r) {
    if (r.count === null || r.count === undefined || n === 0) return null;
    return el('p', { class: 'muted', 'data-testid': 'count' }, 'Showing ' + n.toLocaleString() + ' of ' + (r.count_more ? 'more than ' : '') + r.count.toLocaleString() + '.');
  }

  function goWithFilters(view) {
    return (data) => {
      const q = new URLSearchParams();
      for (const [k, v] of data.entries()) if (v) q.set(k, v);
      location.hash = view + (q.toString() ? '?' + q : '');
    };
  }

  // the current filters with the next page's bound (ids below the last one shown; in a time range,
  // finished before the last one shown, or with it and an older id)
  function pageAfter(lastId, lastFinished) {
    const q = new URLSearchParams(location.hash.split('?')[1] || '');
    q.set('before', lastId);
    if (lastFinished) q.set('finished_before', lastFinished);
    return q.toString();
  }

  function query() {
    const raw = location.hash.split('?')[1];
    return raw ? '?' + raw : '';
  }

  // the jobs the filters select, retried (failed) or cancelled (waiting) at once, after the dialog says how many
  async function bulk(action) {
    const q = new URLSearchParams(location.hash.split('?')[1] || '');
    const queue = q.get('queue') || '', type = q.get('type') || '';
    let sel;
    try {
      sel = await get(API + '/jobs/selection?' + new URLSearchParams({ action, queue, type }));
    } catch (e) {
      if (e instanceof Refused) { logout(e.message); return; }
      $('notice').textContent = 'Not done: ' + e.message;
      return;
    }
    const where = (queue ? ' in queue ' + queue : '') + (type ? ' of type ' + type : '');
    if (sel.count === 0) {
      $('notice').textContent = 'No ' + (action === 'retry' ? 'failed job of no flow, batch or chain' : 'waiting job') + where
        + ': nothing to ' + action + '.';
      return;
    }
    const n = (sel.more ? 'more than ' : '') + sel.count;
    const answer = await ask(action === 'retry'
      ? { title: 'Retry ' + n + ' failed job(s)' + where + '?', ok: 'Retry them',
        text: 'Each runs again from its first attempt (' + sel.per_request + ' at most per confirmation). Steps of flows, '
          + 'batches and chains are not among them: they are retried with what they belong to.' }
      : { title: 'Cancel ' + n + ' waiting job(s)' + where + '?', ok: 'Cancel them', danger: true,
        text: 'None of them has started; none will run (' + sel.per_request + ' at most per confirmation). A step of a flow '
          + 'among them fails its flow, which compensates.' });
    if (answer === null) return;
    await send(API + '/jobs/bulk', Object.assign({ action, queue, type }, answer));
  }

  const JOB_STATES = ['available', 'running', 'succeeded', 'failed', 'cancelled'];

  async function jobs() {
    const r = await get(API + '/jobs' + query());
    const params = new URLSearchParams(location.hash.split('?')[1] || '');
    const shown = params.get('state');
    const timed = params.has('finished_after') || params.has('finished_before');
    const last = r.items[r.items.length - 1];
    return [
      el('h2', {}, 'Jobs'),
      filterForm([['queue', 'Queue', r.queues], ['state', 'State', JOB_STATES], ['type', 'Type', r.types],
        ['flow', 'Flow id', null, 'id'], ['error', 'Error contains'], ['finished_after', 'Finished after (UTC)', null, 'time'],
        ['finished_before', 'before', null, 'time']], goWithFilters('jobs')),
      shown === 'failed' ? el('p', {}, el('button', { type: 'button', id: 'bulk-retry', onclick: () => bulk('retry') },
        'Retry every failed job that matches\u2026')) : null,
      shown === 'available' ? el('p', {}, el('button', { type: 'button', class: 'danger', id: 'bulk-cancel',
        onclick: () => bulk('cancel') }, 'Cancel every waiting job that matches\u2026')) : null,
      shownOf(r.items.length, r),
      r.items.length === 0 ? (r.searched_to ? null : el('p', { class: 'muted', id: 'no-jobs' }, 'No job matches.')) :
        table(['id', 'queue', 'type', 'state', 'attempt', 'node', 'flow', ...(timed ? ['finished'] : []), 'last error', 'action'],
          r.items.map((j) => [
            el('a', { href: '#job/' + j.id }, String(j.id)), j.queue, j.kind, state(j.state), j.attempt + '/' + j.max_attempts,
            j.lease_owner ? j.lease_owner + ' epoch ' + j.epoch : 'epoch ' + j.epoch,
            j.flow_id ? el('a', { href: '#flow/' + j.flow_id }, String(j.flow_id)) : '',
            ...(timed ? [time(j.finished_at)] : []),
            j.last_error ? el('details', { 'data-key': 'error-' + j.id }, el('summary', {}, j.last_error.split('\n')[0].slice(0, 120)),
              el('pre', {}, j.last_error)) : '',
            jobActions(j),
          ]), (i) => ({ 'data-job': r.items[i].id })),
      r.items.length === r.page ? el('p', {}, el('a', { id: 'older-jobs', href: '#jobs?' + pageAfter(last.id, timed ? last.finished_at : null) },
        'Older jobs')) : null,
      // a search by error text reads a window of the newest jobs at a time: it says so, and goes on from there
      r.searched_to ? el('p', { 'data-testid': 'search-window' }, 'Searched the newest ' + r.search_window.toLocaleString()
        + ' jobs that match the other filters' + (r.items.length ? '' : ': none has that text') + '. ',
        el('a', { href: '#jobs?' + pageAfter(r.searched_to, r.searched_to_finished) }, 'Search older jobs')) : null,
    ];
  }

  async function flowList() {
    const r = await get(API + '/flows' + query());
    const paged = new URLSearchParams(location.hash.split('?')[1] || '').has('before');
    const wanted = new URLSearchParams(location.hash.split('?')[1] || '').get('state');
    // the newest-first part, which pages on (the needs-attention part is the oldest first, all on page one)
    const older = wanted ? (wanted === 'needs_attention' ? [] : r.items)
      : r.items.filter((f) => paged || f.state !== 'needs_attention');
    return [
      el('h2', {}, 'Flows'),
      el('p', { class: 'muted' }, 'Flows that need a person come first.'),
      filterForm([['state', 'State', ['running', 'compensating', 'needs_attention', 'succeeded', 'failed']],
        ['subject', 'Subject (a site)']], goWithFilters('flows')),
      shownOf(r.items.length, r),
      r.items.length === 0 ? el('p', { class: 'muted' }, 'No flow matches.') :
        table(['id', 'kind', 'subject', 'state', 'why', 'updated'], r.items.map((f) => [
          el('a', { href: '#flow/' + f.id }, String(f.id)), f.kind, f.subject, state(f.state),
          f.attention || f.failure_reason || '', time(f.updated_at)]),
        (i) => r.items[i].state === 'needs_attention' ? { class: 'highlight', 'data-flow': r.items[i].id } : { 'data-flow': r.items[i].id }),
      // the next page: below the oldest of the newest-first part (the needs-attention part comes first, on page one only)
      older.length >= r.page ? el('p', {}, el('a', { id: 'older-flows', href: '#flows?' + pageAfter(older[older.length - 1].id) },
        'Older flows')) : null,
    ];
  }

  async function nodes() {
    const r = await get(API + '/nodes');
    const waiting = Object.entries(r.unhandled);
    return [
      el('h2', {}, 'Nodes'),
      el('p', { class: 'muted' }, 'Every engine node that started and has not stopped, as it last recorded itself. '
        + 'A node leases only the job types it handles; one killed without stopping shows as not live for an hour.'),
      table(['node', 'version', 'queues', 'running', 'job types', 'started', 'last seen', 'live'], r.items.map((n) => [
        n.node_id + (n.node_id === r.this_node ? ' (serving this page)' : ''), n.version,
        Object.entries(n.queues).map(([q, c]) => q + ' \u00d7 ' + c).join(', ') || 'none (enqueues only)', n.running,
        n.job_types.filter((t) => !t.startsWith('converge.')).join(', '), time(n.started_at), time(n.last_seen),
        n.live ? 'yes' : 'no']),
        (i) => r.items[i].live ? { 'data-node': r.items[i].node_id } : { class: 'highlight', 'data-node': r.items[i].node_id }),
      el('h3', {}, 'Leader tasks'),
      el('p', { class: 'muted' }, 'Each runs on one node at a time (the one holding its claim); a round that changes nothing '
        + 'is recorded at most every 30 s.'),
      r.leader_tasks.length === 0 ? el('p', { 'data-testid': 'no-leader-rounds' }, 'No leader task has recorded a round yet '
        + '(they start within a minute of a node starting).') :
        table(['task', 'node', 'last round', 'what it did', 'last change'], r.leader_tasks.map((t) => [t.task, t.node_id,
          time(t.round_at), t.outcome === 'ok' ? (t.detail || 'nothing to do') : el('span', { class: 'error' }, 'failed: ' + t.detail),
          t.changed_at ? el('span', {}, time(t.changed_at), ': ', t.changed_detail) : 'never']),
        (i) => ({ 'data-task': r.leader_tasks[i].task })),
      waiting.length === 0 ? null : el('section', { 'data-testid': 'unhandled' },
        el('h3', {}, 'Jobs no live node handles'),
        el('p', { class: 'muted' }, 'They wait for a node with their handler, and fail after the unhandled-job grace.'),
        table(['job type', 'waiting'], waiting.map(([t, n]) => [t, String(n)]))),
    ];
  }

  function ledgerTable(items) {
    return table(['id', 'kind', 'natural key', 'state', 'leaf id', 'owner', 'updated', 'what happens next', ''], items.map((e) => [
      String(e.id), e.kind, e.natural_key, state(e.state), e.leaf_id || '',
      e.owner_job_id ? el('a', { href: '#job/' + e.owner_job_id }, 'job ' + e.owner_job_id + ' epoch ' + e.owner_epoch) : '',
      time(e.updated_at), e.next || '',
      e.state === 'claimed' || e.state === 'uncertain'
        ? el('button', { type: 'button', 'data-settle-entry': e.id, onclick: () => settleEntry(e) }, 'Settle') : '']),
    (i) => items[i].highlight ? { class: 'highlight', 'data-entry': items[i].id } : { 'data-entry': items[i].id });
  }

  async function flow(id) {
    let r;
    try {
      r = await get(API + '/flows/' + encodeURIComponent(id));
    } catch (e) {
      if (e instanceof Refused) throw e;
      // a flow not there (never, or deleted by retention): say so on the page, not only in the status line
      return [el('h2', {}, 'Flow ' + id), el('p', { class: 'error', 'data-testid': 'not-found' }, e.message),
        el('p', {}, el('a', { href: '#flows' }, 'Back to the flows'))];
    }
    const f = r.flow;
    return [
      el('h2', {}, 'Flow ' + f.id + ': ' + f.kind + ' ' + f.subject + ' ', state(f.state)),
      f.attention ? el('div', { class: 'attention' }, 'A person must look at this: ' + f.attention) : null,
      f.state === 'needs_attention' ? el('p', {}, el('button', { type: 'button', 'data-retry-flow': f.id,
        onclick: () => retryFlow(f) }, 'Retry the flow')) : null,
      f.failure_reason ? el('p', {}, 'Failure: ' + f.failure_reason) : null,
      el('h2', {}, 'Timeline'),
      table(['at', 'from', 'to', 'reason'], r.history.map((h) => [time(h.at), h.from ? state(h.from) : '',
        state(h.to), h.reason || ''])),
      el('h2', {}, 'Batches and chains'),
      table(['', 'name', 'state', 'progress'], [
        ...r.batches.map((b) => ['batch ' + b.id, b.name, state(b.state),
          b.succeeded + ' ok, ' + b.failed + ' failed, ' + b.cancelled + ' cancelled of ' + b.total]),
        ...r.chains.map((c) => ['chain ' + c.id, c.name, state(c.state), 'link ' + c.position + ' of ' + c.size])]),
      el('h2', {}, 'Jobs'),
      table(['id', 'type', 'state', 'attempt', 'last error', 'action'], r.jobs.map((j) => [
        el('a', { href: '#job/' + j.id }, String(j.id)), j.kind, state(j.state),
        j.attempt + '/' + j.max_attempts, j.last_error ? el('pre', {}, j.last_error) : '',
        jobActions(Object.assign({ flow_id: f.id }, j))]), (i) => ({ 'data-job': r.jobs[i].id })),
      el('h2', {}, 'Ledger entries it created'),
      ledgerTable(r.ledger),
      el('h2', {}, 'Compensations, in the order they run'),
      r.compensations.length === 0 ? el('p', { class: 'muted' }, 'none') :
        table(['order', 'id', 'type', 'state', 'attempts', 'last error'], r.compensations.map((c, i) => [i + 1, String(c.id), c.kind,
          state(c.state), c.attempts, c.last_error || '']), (i) => ({ 'data-compensation': r.compensations[i].id })),
    ];
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return '';
    if (ms < 1000) return ms + ' ms';
    if (ms < 120000) return (ms / 1000).toFixed(1) + ' s';
    return Math.round(ms / 60000) + ' min';
  }

  // an error: its first line, and the whole text (the stack trace) when opened; stays open across polls
  function errorText(text, key) {
    if (!text) return '';
    const first = text.split('\n')[0];
    return text.includes('\n')
      ? el('details', { 'data-key': key }, el('summary', {}, first.slice(0, 160)), el('pre', {}, text))
      : el('span', {}, text);
  }

  // a failed step is retried with its flow: the flow's state says whether that can happen now, and how
  function stepOfFlow(f) {
    if (f.state === 'needs_attention') {
      return el('p', {}, 'A step of a flow is retried with its flow, from where it stopped. ',
        el('button', { type: 'button', 'data-retry-flow': f.id, onclick: () => retryFlow(f) }, 'Retry flow ' + f.id));
    }
    const why = { failed: 'it has failed and compensated: its application starts it again if wanted',
      succeeded: 'it succeeded without this step', compensating: 'it is compensating on its own',
      running: 'it is still running' }[f.state] || 'it is ' + f.state;
    return el('p', { class: 'muted', 'data-testid': 'step-of-flow' }, 'A step of a flow is retried with its flow; flow ' + f.id
      + ' cannot be retried now: ' + why + '.');
  }

  async function job(id) {
    let r;
    try {
      r = await get(API + '/jobs/' + encodeURIComponent(id));
    } catch (e) {
      if (e instanceof Refused) throw e;
      return [el('h2', {}, 'Job ' + id), el('p', { class: 'error', 'data-testid': 'not-found' }, e.message),
        el('p', {}, el('a', { href: '#jobs' }, 'Back to the jobs'))];
    }
    const j = r.job;
    const facts = [
      ['queue', j.queue], ['attempt', j.attempt + ' of ' + j.max_attempts], ['due at', time(j.run_at)],
      ['enqueued', time(j.created_at)], ['started', j.started_at ? time(j.started_at) : 'not yet'],
      ['finished', j.finished_at ? time(j.finished_at) : 'not yet'],
      ['node', j.node ? j.node + (j.state === 'running' ? ' (holds its lease until ' + new Date(j.lease_expires_at).toLocaleTimeString() + ')' : '') : ''],
      ['flow', r.flow ? el('a', { href: '#flow/' + r.flow.id }, r.flow.kind + ' ' + r.flow.subject + ' (flow ' + r.flow.id + ', ' + r.flow.state + ')')
        : (j.flow_id ? 'flow ' + j.flow_id + ' (deleted by retention)' : 'none')],
      ['batch', j.batch_id ? 'batch ' + j.batch_id : 'none'],
      ['chain', j.chain_id ? 'chain ' + j.chain_id + ', link ' + (j.chain_pos + 1) : 'none'],
    ];
    return [
      el('h2', {}, 'Job ' + j.id + ': ' + j.kind + ' ', state(j.state)),
      el('dl', { class: 'facts', 'data-testid': 'job-facts' }, facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
      el('p', {}, jobActions(Object.assign({}, j))),
      j.state === 'failed' && r.flow ? stepOfFlow(r.flow) : null,
      el('h2', {}, 'Attempts'),
      r.attempts.length === 0
        ? el('p', { class: 'muted', 'data-testid': 'no-attempts' }, j.state === 'available'
          ? 'No attempt yet: it waits in queue ' + j.queue + ' for its due time and a free worker.'
          : 'No attempt recorded: it ended without running, or its attempts were made by a release that did not record them.')
        : table(['#', 'node', 'started', 'ended', 'took', 'outcome', 'error'], r.attempts.map((a, i) => [a.attempt,
          a.node || '', time(a.started_at), a.finished_at ? time(a.finished_at) : 'running', duration(a.duration_ms),
          state(a.outcome), errorText(a.error, 'attempt-' + j.id + '-' + i)]), (i) => ({ 'data-attempt': r.attempts[i].attempt })),
    ];
  }

  async function ledger() {
    const [r, tokens] = await Promise.all([get(API + '/ledger' + query()), get(API + '/tokens')]);
    return [
      el('h2', {}, 'Ledger'),
      el('p', { class: 'muted' }, 'Without a filter: the unresolved entries, the longest waiting first. Uncertain ones, and ones claimed over '
        + r.long_claimed_minutes + ' minutes, are highlighted.'),
      filterForm([['kind', 'Resource type'], ['state', 'State', ['claimed', 'uncertain', 'confirmed', 'deleting', 'deleted', 'released']],
        ['subject', 'Subject (a site)']], goWithFilters('ledger')),
      r.items.length === 0 ? el('p', {}, query() ? 'No entry matches.' : 'Nothing unresolved.') : ledgerTable(r.items),
      // a filtered list pages on, newest first
      query() && r.items.length === r.page ? el('p', {}, el('a', { id: 'older-entries',
        href: '#ledger?' + pageAfter(r.items[r.items.length - 1].id) }, 'Older entries')) : null,
      el('h2', {}, 'Tokens whose use is unknown'),
      tokens.items.length === 0 ? el('p', { class: 'muted' }, 'None: every token in use has a known outcome.') :
        table(['id', 'pool', 'owner', 'checked out', 'use started', ''], tokens.items.map((t) => [String(t.id), t.pool,
          t.owner_job_id ? el('a', { href: '#job/' + t.owner_job_id }, 'job ' + t.owner_job_id + (t.owner_state ? ' (' + t.owner_state + ')' : ''))
            : '', time(t.checked_out_at), time(t.used_at),
          el('button', { type: 'button', 'data-settle-token': t.id, onclick: () => settleToken(t) }, 'Settle')]),
        (i) => ({ 'data-token': tokens.items[i].id })),
    ];
  }

  async function scanOrphans() {
    try {
      await post(API + '/orphans/scan', {});
      $('notice').textContent = 'The leaves were listed again.';
    } catch (e) {
      if (e instanceof Refused) { logout(e.message); return; }
      $('notice').textContent = 'Not listed: ' + e.message;
    }
    draw();
  }

  async function orphans() {
    let r;
    try {
      r = await get(API + '/orphans');
    } catch (e) {
      if (e instanceof Refused) throw e;
      return [el('h2', {}, 'Orphans'), el('p', {}, e.message),
        el('button', { type: 'button', id: 'scan-orphans', onclick: scanOrphans }, 'List the leaves now')];
    }
    if (!r.as_of) {
      return [el('h2', {}, 'Orphans'), el('p', { class: 'muted' }, 'The first scan of the leaves has not finished yet. ',
        el('button', { type: 'button', id: 'scan-orphans', onclick: scanOrphans }, 'List the leaves now'))];
    }
    return [
      el('h2', {}, 'Orphans'),
      el('p', { class: 'muted' }, 'Resources at the leaves that no ledger entry owns, from the scan of ', time(r.as_of),
        r.complete ? '' : ' (some leaves could not be listed)', ' ',
        el('button', { type: 'button', id: 'scan-orphans', onclick: scanOrphans }, 'List the leaves now')),
      table(['leaf', 'listed', 'ours', 'others'], r.leaves.map((l) => [l.kind, l.available ? 'yes' : 'no: ' + (l.detail || ''),
        l.orphans ?? '', l.other_count ?? ''])),
      el('h2', {}, 'Tagged as ours'),
      r.items.length === 0 ? el('p', {}, 'None.') :
        table(['leaf', 'leaf id', 'natural key', 'subject', ''], r.items.map((o) => [o.kind, o.leaf_id, o.natural_key, o.subject,
          deleted.has(o.kind + ' ' + o.leaf_id) ? el('span', { class: 'state state-deleted' }, 'deleted') :
            el('button', { type: 'button', class: 'danger', 'data-orphan': o.leaf_id, onclick: () => deleteOrphan(o) }, 'Delete at the leaf')]),
        (i) => ({ 'data-orphan-row': r.items[i].leaf_id })),
    ];
  }

  async function recurring() {
    const r = await get(API + '/recurring');
    return [
      el('h2', {}, 'Recurring jobs'),
      el('p', { class: 'muted' }, 'Jobs enqueued on a schedule by the leader, one run per slot across the fleet. '
        + 'Paused, a job\u2019s slots pass without a run until it is resumed.'),
      r.items.length === 0 ? el('p', { 'data-testid': 'recurring-empty' }, 'No recurring job is declared on this engine '
        + '(Converge.Builder.recurring declares one).') :
        table(['job', 'schedule', 'state', 'last slot', 'next slot', 'skipped', 'last action', ''], r.items.map((x) => [
          el('span', {}, x.name, el('br'), el('small', { class: 'muted' }, x.job_type + ' on ' + x.queue)),
          el('span', {}, x.schedule, el('br'), el('small', { class: 'muted' },
            x.missed_slots === 'skip' ? 'a slot found late is skipped' : 'missed slots run once')),
          x.paused_at ? el('span', {}, state('paused'), el('br'), el('small', {}, 'since ', time(x.paused_at))) : state('scheduled'),
          x.last_slot ? el('span', {}, time(x.last_slot), x.last_job_id ? el('span', {}, ' ', el('a', { href: '#job/' + x.last_job_id }, 'job ' + x.last_job_id)) : null)
            : 'not yet',
          x.paused_at ? el('span', { class: 'muted' }, 'passes (paused)') : time(x.next_slot),
          String(x.skipped),
          x.last_action ? el('span', {}, x.last_action.action.replace('_', ' ') + ' by ' + x.last_action.actor, el('br'),
            el('small', {}, time(x.last_action.at), ': ', x.last_action.reason)) : '',
          el('span', { class: 'buttons' },
            x.paused_at
              ? el('button', { type: 'button', 'data-resume': x.name, onclick: () => recurringAction(x, 'resume') }, 'Resume')
              : el('button', { type: 'button', class: 'danger', 'data-pause': x.name, onclick: () => recurringAction(x, 'pause') }, 'Pause'),
            ' ', el('button', { type: 'button', 'data-run': x.name, onclick: () => recurringAction(x, 'run') }, 'Run now')),
        ]), (i) => ({ 'data-recurring': r.items[i].name })),
    ];
  }

  // ---- history: a queue's depth, throughput, failures and times, drawn by uPlot ------------------

  // charts drawn once per data: the page keeps them across polls until their data (or the theme) changes
  const chartDrawers = new Map();
  let plots = [];

  function seconds(ms) {
    return ms == null ? null : ms / 1000;
  }

  function historyChart(title, testId, xs, series, opts = {}) {
    const css = getComputedStyle(document.documentElement);
    const color = (v) => css.getPropertyValue(v).trim();
    const axis = { stroke: color('--fg'), grid: { stroke: color('--line'), width: 1 }, ticks: { stroke: color('--line'), width: 1 } };
    const box = el('figure', { class: 'history-chart', 'data-chart': testId },
      el('figcaption', {}, title));
    return {
      box,
      draw: (width) => {
        const plot = new uPlot({
          width, height: 180,
          scales: { x: { time: true }, y: opts.log ? { distr: 3 } : { range: (u, min, max) => [0, Math.max(1, max)] } },
          axes: [axis, Object.assign({}, axis, opts.log ? { size: 64, values: (u, v) => v.map((x) => x == null ? '' : x >= 60 ? (x / 60) + ' min' : x + ' s') } : {})],
          series: [{}].concat(series.map(([label, cssVar, , dash]) => ({
            // points too: a minute with something between two without is a dot, not nothing
            label, stroke: color(cssVar), width: 2, spanGaps: false, dash, points: { show: true, size: 5, fill: color(cssVar) },
            value: (u, v) => v == null ? '\u2013' : opts.log ? (v >= 60 ? (v / 60) + ' min' : v + ' s') : String(Math.round(v * 100) / 100),
          }))),
        }, [xs].concat(series.map(([, , values]) => values)), box);
        plots.push(plot);
      },
    };
  }

  async function history() {
    const q = new URLSearchParams(location.hash.split('?')[1] || '');
    const span = ['1h', '24h', '7d'].includes(q.get('span')) ? q.get('span') : '1h';
    const wanted = q.get('queue');
    const h = await get(API + '/history?span=' + span + (wanted ? '&queue=' + encodeURIComponent(wanted) : ''));
    const link = (queue, s) => '#history?' + new URLSearchParams({ queue, span: s });
    const head = [el('h2', {}, 'History'),
      el('p', { class: 'muted' }, 'What each queue did, summed over every node: each node writes its counts every minute and '
        + 'the leader samples the depth; kept seven days.')];
    if (!h.queue) return head.concat(el('p', { 'data-testid': 'history-empty' }, 'No queue has a history yet: it starts with the first node that works a queue.'));
    const pts = h.points;
    const xs = pts.map((p) => Date.parse(p.at) / 1000);
    const perMinute = (n) => n / (h.step_seconds / 60);
    const total = (f) => pts.reduce((a, p) => a + p[f], 0);
    const stepText = h.step_seconds === 60 ? 'per minute' : 'per minute, averaged over ' + (h.step_seconds / 60) + ' minutes';
    const charts = [
      historyChart('Depth: jobs due and waiting, and running (the most at a sample)', 'depth', xs, [
        ['waiting', '--warn', pts.map((p) => p.depth)], ['running', '--accent', pts.map((p) => p.running)]]),
      historyChart('Throughput: jobs finished ' + stepText, 'throughput', xs, [
        ['succeeded', '--ok', pts.map((p) => perMinute(p.succeeded))], ['failed for good', '--bad', pts.map((p) => perMinute(p.failed))]]),
      historyChart('Failures ' + stepText + ': for good, and retried', 'failures', xs, [
        ['failed for good', '--bad', pts.map((p) => perMinute(p.failed))], ['retried', '--warn', pts.map((p) => perMinute(p.retried)), [4, 4]]]),
      historyChart('Wait (due to start) and run time, p95 (log scale)', 'times', xs, [
        ['wait p95', '--warn', pts.map((p) => seconds(p.wait_p95_ms))], ['run p95', '--accent', pts.map((p) => seconds(p.run_p95_ms))]], { log: true }),
    ];
    const theme = document.documentElement.dataset.theme || (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    const key = h.queue + ' ' + h.span + ' ' + theme + ' ' + JSON.stringify(pts);
    chartDrawers.clear();
    chartDrawers.set(key, (container) => {
      // each chart as wide as its cell of the grid
      charts.forEach((c) => container.append(c.box));
      charts.forEach((c) => c.draw(Math.max(260, c.box.clientWidth - 20)));
    });
    return head.concat(
      el('form', { class: 'filters', onsubmit: (e) => e.preventDefault() },
        el('label', {}, 'Queue', el('select', { id: 'history-queue', onchange: (e) => { location.hash = link(e.target.value, span); } },
          h.queues.map((name) => el('option', { value: name, selected: name === h.queue }, name)))),
        el('span', { class: 'spans', role: 'group', 'aria-label': 'Span' }, ['1h', '24h', '7d'].map((s) =>
          s === span ? el('strong', { 'aria-current': 'true', 'data-span': s }, s) : el('a', { href: link(h.queue, s), 'data-span': s }, s)))),
      el('p', { 'data-testid': 'history-totals' }, 'In the last ' + span + ' on ', el('strong', {}, h.queue), ': ',
        el('span', { 'data-total': 'succeeded' }, String(total('succeeded'))), ' succeeded, ',
        el('span', { 'data-total': 'failed' }, String(total('failed'))), ' failed for good, ',
        el('span', { 'data-total': 'retried' }, String(total('retried'))), ' retried.'),
      el('div', { class: 'history', 'data-charts': key }));
  }

  const VIEWS = { overview, jobs, flows: flowList, nodes, history, recurring, ledger, orphans };

  // an application's own pages: ConvergeDashboard.page(name, async (ui) => nodes), from a script the page loads
  window.ConvergeDashboard = Object.freeze({
    page(name, render) {
      if (VIEWS[name] || name.startsWith('flow') || name.startsWith('job')) throw new Error('the dashboard already has a view named ' + name);
      const ui = Object.freeze({
        data: () => get(API + '/pages/' + encodeURIComponent(name) + query()),
        el, table, state, time,
        filters: (fields) => filterForm(fields, goWithFilters(name)),
        olderLink: (items, page, text) => items.length === page
          ? el('p', {}, el('a', { href: '#' + name + '?' + pageAfter(items[items.length - 1].id) }, text)) : null,
      });
      VIEWS[name] = () => render(ui);
    },
  });

  // ---- the loop ----------------------------------------------------------------------------

  function current() {
    const name = (location.hash.replace(/^#/, '').split('?')[0]) || 'overview';
    if (name.startsWith('flow/')) return { name: 'flows', render: () => flow(name.substring(5)) };
    if (name.startsWith('job/')) return { name: 'jobs', render: () => job(name.substring(4)) };
    return { name: VIEWS[name] ? name : 'overview', render: VIEWS[name] || overview };
  }

  async function draw() {
    const mine = ++generation;
    const view = current();
    if (view.name !== shownView) $('notice').textContent = ''; // an action's answer belongs to its page
    shownView = view.name;
    for (const a of document.querySelectorAll('nav a')) {
      if (a.getAttribute('href') === '#' + view.name) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    try {
      const nodes = await view.render();
      if (mine !== generation) return; // a newer draw started meanwhile
      const target = $('view');
      // keep an open filter field's focus: redraw only when the user is not typing in it
      if (target.contains(document.activeElement) && ['INPUT', 'SELECT'].includes(document.activeElement.tagName)) return;
      // a poll that brings nothing new leaves the page alone: a button the user is about to press stays the same button
      const fresh = document.createElement('div');
      fresh.replaceChildren(...nodes.filter((n) => n));
      // what the person opened (a stack trace) stays open across polls
      const open = new Set([...target.querySelectorAll('details[open][data-key]')].map((d) => d.dataset.key));
      for (const d of fresh.querySelectorAll('details[data-key]')) if (open.has(d.dataset.key)) d.open = true;
      // charts are compared by their data (their key), not their drawing
      const shown = target.cloneNode(true);
      for (const c of shown.querySelectorAll('[data-charts]')) c.replaceChildren();
      if (fresh.innerHTML !== shown.innerHTML) {
        plots.forEach((p) => p.destroy());
        plots = [];
        target.replaceChildren(...fresh.childNodes);
        for (const c of target.querySelectorAll('[data-charts]')) chartDrawers.get(c.dataset.charts)(c);
      }
      chartDrawers.clear();
      $('status').textContent = 'Updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      if (e instanceof Refused) {
        logout(e.message);
        return;
      }
      $('status').textContent = 'Could not update: ' + e.message;
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (!document.hidden) await draw();
      if (csrf) schedule();
    }, POLL_MS);
  }

  function start() {
    $('login').hidden = true;
    $('nav').hidden = false;
    draw().then(schedule);
  }

  function logout(message) {
    clearTimeout(timer);
    csrf = null;
    $('view').replaceChildren();
    $('nav').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = message || '';
    $('status').textContent = '';
    $('token').focus();
  }

  document.addEventListener('DOMContentLoaded', () => {
    let saved = null;
    try { saved = localStorage.getItem('converge-theme'); } catch (x) { /* storage off: follow the system */ }
    applyTheme(saved === 'dark' || saved === 'light' ? saved : null);
    // the system switched (at dusk, say): the button follows while the person has not chosen
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change',
      () => applyTheme(document.documentElement.dataset.theme || null));
    $('theme').addEventListener('click', () => {
      const next = document.documentElement.dataset.theme === 'dark'
        || (!document.documentElement.dataset.theme && window.matchMedia('(prefers-color-scheme: dark)').matches) ? 'light' : 'dark';
      try { localStorage.setItem('converge-theme', next); } catch (x) { /* kept for this page only */ }
      applyTheme(next);
      if (csrf) draw(); // charts take their colours when drawn
    });
    $('login').addEventListener('submit', async (e) => {
      e.preventDefault();
      const token = $('token').value.trim();
      $('token').value = '';
      if (!token) return;
      try {
        const r = await fetch(BASE + '/session', { method: 'POST', credentials: 'same-origin', body: JSON.stringify({ token }),
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
        let answer = {};
        try { answer = await r.json(); } catch (x) { /* not JSON */ }
        if (!r.ok) { logout(answer.detail || 'The token was refused.'); return; }
        csrf = answer.csrf_token;
      } catch (x) {
        logout('The server did not answer: ' + x.message);
        return;
      }
      $('login-error').textContent = '';
      start();
    });
    $('logout').addEventListener('click', async () => {
      try {
        await fetch(BASE + '/session', { method: 'DELETE', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf || '' } });
      } catch (x) { /* the cookie expires on its own */ }
      logout('');
    });
    window.addEventListener('hashchange', () => { if (csrf) draw(); });
    // a job or a flow by its id: its page, at an address that can be shared (#job/<id>, #flow/<id>)
    $('goto').addEventListener('submit', (e) => {
      e.preventDefault();
      const id = $('goto-id').value.trim();
      if (!/^[0-9]{1,18}$/.test(id) || Number(id) < 1) { $('notice').textContent = 'An id is a positive whole number.'; return; }
      location.hash = $('goto-kind').value + '/' + id;
      $('goto-id').value = '';
    });
    // a reloaded page: its session (the cookie) may still be live; its CSRF token is read again
    fetch(BASE + '/session', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then((r) => r.ok ? r.json() : null)
      .then((s) => { if (s && s.csrf_token) { csrf = s.csrf_token; start(); } else logout(''); })
      .catch(() => logout(''));
  });
})();
