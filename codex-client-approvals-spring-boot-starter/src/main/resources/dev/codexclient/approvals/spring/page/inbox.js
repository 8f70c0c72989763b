// The approvals inbox's page. Plain JavaScript, no build step. Everything codex or the model wrote is put into the
// page as text (textContent), never parsed as HTML.
'use strict';
(function () {
  const meta = (name) => document.querySelector('meta[name="' + name + '"]').content;
  const base = meta('inbox-base');
  const csrfHeader = meta('csrf-header');
  const csrfToken = meta('csrf-token');
  const entries = new Map();          // id -> the entry as the API gave it last
  const messages = new Map();         // id -> a message for the person, kept across re-renders

  const LABELS = {
    COMMAND: 'Run a command', FILE_CHANGE: 'Change files', PERMISSIONS: 'Grant permissions',
    LEGACY_COMMAND: 'Run a command', LEGACY_PATCH: 'Apply a patch'
  };
  const DECISIONS = {
    accept: 'Approve', acceptForSession: 'Approve for the session',
    acceptWithExecpolicyAmendment: 'Approve and allow alike', decline: 'Decline', cancel: 'Cancel the turn'
  };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function field(parent, name, value, cls) {
    if (value === undefined || value === null || value === '') return;
    const row = el('div', 'field');
    row.appendChild(el('span', 'name', name));
    const v = el(typeof value === 'string' && value.indexOf('\n') < 0 && value.length < 120 ? 'code' : 'pre',
      'value ' + (cls || ''), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    row.appendChild(v);
    parent.appendChild(row);
  }

  function when(iso) {
    const d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString();
  }

  function outcome(e) {
    switch (e.state) {
      case 'DECIDED': return 'Decided: ' + (DECISIONS[e.decision] || e.decision) + ' by ' + e.decidedBy
        + ' at ' + when(e.endedAt) + (e.sent ? '; sent to codex' : '; not sent to codex yet');
      case 'EXPIRED': return 'Expired at ' + when(e.endedAt) + ': ' + (e.endReason || '');
      case 'WITHDRAWN': return 'Withdrawn at ' + when(e.endedAt) + ': ' + (e.endReason || '');
      case 'LOST': return 'Lost at ' + when(e.endedAt) + ': ' + (e.endReason || '')
        + '. Resume thread ' + e.threadId + ' and run the turn again.';
      default: return e.holder ? 'Waiting for a decision' : 'Waiting for a decision; codex asks again when its thread is resumed';
    }
  }

  function render(e) {
    const card = el('article', 'entry state-' + e.state.toLowerCase());
    card.dataset.id = e.id;
    const head = el('header');
    head.appendChild(el('span', 'kind', LABELS[e.kind] || e.kind));
    head.appendChild(el('span', 'state', e.state.toLowerCase()));
    head.appendChild(el('span', 'time', 'asked ' + when(e.requestedAt)));
    card.appendChild(head);

    const r = e.request || {};
    const body = el('div', 'request');
    if (e.kind === 'COMMAND') {
      field(body, 'Command', r.command, 'command');
      field(body, 'In', r.cwd, 'cwd');
    } else if (e.kind === 'LEGACY_COMMAND') {
      field(body, 'Command', Array.isArray(r.command) ? r.command.join(' ') : r.command, 'command');
      field(body, 'In', r.cwd, 'cwd');
    } else if (e.kind === 'PERMISSIONS') {
      field(body, 'Permissions', r.permissions, 'permissions');
    } else if (e.kind === 'LEGACY_PATCH') {
      field(body, 'Files', r.fileChanges, 'changes');
      field(body, 'Root', r.grantRoot, 'root');
    } else if (e.kind === 'FILE_CHANGE') {
      const changes = e.item && e.item.changes;
      if (Array.isArray(changes)) {
        changes.forEach((c) => field(body, c.path || 'file', c.diff || c.kind, 'diff'));
      }
      field(body, 'Root', r.grantRoot, 'root');
    }
    field(body, 'Reason', r.reason, 'reason');
    field(body, 'Thread', e.threadId, 'thread');
    field(body, 'Turn', e.turnId, 'turn');
    field(body, 'Item', e.itemId, 'item');
    card.appendChild(body);

    const full = el('details', 'full');
    full.appendChild(el('summary', null, 'The request in full'));
    full.appendChild(el('pre', 'json', JSON.stringify(r, null, 2)));
    if (e.item) full.appendChild(el('pre', 'json item', JSON.stringify(e.item, null, 2)));
    card.appendChild(full);

    card.appendChild(el('p', 'outcome', outcome(e)));
    if (e.state === 'PENDING') {
      const actions = el('div', 'actions');
      (e.offered || []).forEach((d) => {
        const b = el('button', 'decide ' + (d.indexOf('accept') === 0 ? 'approve' : 'refuse'), DECISIONS[d] || d);
        b.type = 'button';
        b.dataset.decision = d;
        b.addEventListener('click', () => decide(e.id, d, b));
        actions.appendChild(b);
      });
      card.appendChild(actions);
    }
    const history = el('details', 'history');
    history.appendChild(el('summary', null, 'History'));
    const list = el('ol');
    (e.history || []).forEach((h) => list.appendChild(el('li', null,
      when(h.at) + ' ' + h.what + (h.by ? ' (' + h.by + ')' : '') + ': ' + h.detail)));
    history.appendChild(list);
    card.appendChild(history);
    const message = el('p', 'message', messages.get(e.id) || '');
    message.setAttribute('role', 'status');
    card.appendChild(message);
    return card;
  }

  function show(e) {
    const known = entries.get(e.id);
    if (known && known.version > e.version) return;
    entries.set(e.id, e);
    const old = document.querySelector('article.entry[data-id="' + CSS.escape(e.id) + '"]');
    const card = render(e);
    const target = document.getElementById(e.state === 'PENDING' ? 'pending' : 'ended');
    if (old && old.parentNode === target) {
      target.replaceChild(card, old);
    } else {
      if (old) old.remove();
      target.insertBefore(card, target.firstChild);
    }
    count();
  }

  function count() {
    const n = document.querySelectorAll('#pending article.entry').length;
    document.getElementById('pending-count').textContent = String(n);
    document.getElementById('no-pending').hidden = n > 0;
  }

  function say(id, text) {
    messages.set(id, text);
    const card = document.querySelector('article.entry[data-id="' + CSS.escape(id) + '"]');
    if (card) card.querySelector('.message').textContent = text;
  }

  async function decide(id, decision, button) {
    button.disabled = true;
    const headers = { 'Content-Type': 'application/json', 'Accept': 'application/json' };
    if (csrfHeader) headers[csrfHeader] = csrfToken;
    let response;
    try {
      response = await fetch(base + '/api/entries/' + encodeURIComponent(id) + '/decision', {
        method: 'POST', headers: headers, credentials: 'same-origin', body: JSON.stringify({ decision: decision })
      });
    } catch (err) {
      say(id, 'Could not reach the service: ' + err);
      button.disabled = false;
      return;
    }
    let body = {};
    try { body = await response.json(); } catch (ignored) { body = {}; }
    if (response.ok) {
      say(id, 'You decided: ' + (DECISIONS[decision] || decision));
      show(body);
    } else if (response.status === 409) {
      say(id, 'Already ' + (body.state || 'ended').toLowerCase() + (body.decidedBy ? ' by ' + body.decidedBy : '')
        + (body.endedAt ? ' at ' + when(body.endedAt) : '') + ': your decision was not recorded.');
      if (body.entry) show(body.entry);
    } else {
      say(id, 'Not recorded: ' + (body.error || ('the service answered ' + response.status)));
      button.disabled = false;
    }
  }

  async function load() {
    for (const query of ['state=pending&size=200', 'size=50']) {
      const response = await fetch(base + '/api/entries?' + query, { credentials: 'same-origin',
        headers: { 'Accept': 'application/json' } });
      if (!response.ok) continue;
      const page = await response.json();
      page.entries.slice().reverse().forEach(show);
    }
  }

  function live() {
    const indicator = document.getElementById('live');
    const source = new EventSource(base + '/api/events');
    source.addEventListener('open', () => {
      indicator.textContent = 'live';
      indicator.className = 'live on';
      load();
    });
    source.addEventListener('entry', (event) => show(JSON.parse(event.data)));
    source.addEventListener('error', () => {
      indicator.textContent = 'reconnecting';
      indicator.className = 'live off';
    });
  }

  count();
  live();
})();
