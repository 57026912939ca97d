/// The studio's page, script and style, served from the binary: plain HTML,
/// CSS and JavaScript, no build step, nothing loaded from the network. The
/// script puts every value on the page as text (`textContent`), never as
/// markup, and talks only to the JSON API.
enum StudioAssets {
    struct File {
        var type: String
        var text: String
    }

    static let files: [String: File] = [
        "/index.html": File(type: "text/html; charset=utf-8", text: page),
        "/studio.js": File(type: "text/javascript; charset=utf-8", text: script),
        "/studio.css": File(type: "text/css; charset=utf-8", text: style),
        "/favicon.svg": File(type: "image/svg+xml", text: icon),
        "/favicon.ico": File(type: "image/svg+xml", text: icon),
    ]

    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0a64d8"/>\
        <text x="8" y="12" font-size="10" text-anchor="middle" fill="#fff" font-family="sans-serif">L</text></svg>

        """

    static let page = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>lprojd studio</title>
        <link rel="stylesheet" href="/studio.css">
        <link rel="icon" href="/favicon.svg" type="image/svg+xml">
        <script src="/studio.js" defer></script>
        </head>
        <body>
        <header>
          <h1><a href="#" id="home">lprojd studio</a></h1>
          <span id="connection" class="status" role="status">connecting…</span>
        </header>
        <main>
          <section id="overview" aria-labelledby="overview-title">
            <h2 id="overview-title">Bundles</h2>
            <div id="bundles"></div>
            <h2>Last edits</h2>
            <ol id="recent" aria-live="polite"></ol>
          </section>
          <section id="table-view" hidden aria-labelledby="table-title">
            <h2 id="table-title"></h2>
            <form id="controls">
              <label>Languages <input id="languages" placeholder="fr,de" size="20"></label>
              <label>Show <select id="filter">
                <option value="all">all keys</option>
                <option value="missing">missing</option>
                <option value="diagnostics">with diagnostics</option>
                <option value="missed">missed at runtime</option>
                <option value="stale">stale or needs review</option>
              </select></label>
              <label>Search <input id="search" type="search" placeholder="key or any text"></label>
              <label>Preview <select id="pseudo">
                <option value="">none</option>
                <option value="en-XA">en-XA accented</option>
                <option value="en-XD">en-XD double length</option>
                <option value="en-XE">en-XE bounded</option>
                <option value="ar-XB">ar-XB right to left</option>
              </select></label>
            </form>
            <p id="table-status" role="status"></p>
            <table id="entries"><thead></thead><tbody></tbody></table>
            <nav id="pages"><button id="previous" type="button">Previous</button> <span id="page"></span>
              <button id="next" type="button">Next</button></nav>
          </section>
        </main>
        </body>
        </html>

        """

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; }
        header { display: flex; gap: 1em; align-items: baseline; padding: .5em 1em; background: #f2f2f7; border-bottom: 1px solid #ddd; }
        header h1 { font-size: 1.2em; margin: 0; } header a { color: inherit; text-decoration: none; }
        main { padding: 0 1em 2em; }
        .status.offline { color: #b00020; }
        .bundle { margin: 1em 0; } .bundle h3 { font-size: 1em; font-family: ui-monospace, monospace; }
        .language { display: grid; grid-template-columns: 8em 12em 1fr; gap: .2em 1em; align-items: center; }
        .language button { justify-self: start; }
        progress { width: 10em; }
        table { border-collapse: collapse; width: 100%; table-layout: fixed; }
        th, td { border: 1px solid #ddd; padding: .3em .5em; vertical-align: top; text-align: start; overflow-wrap: anywhere; white-space: pre-wrap; }
        th.key, td.key { font-family: ui-monospace, monospace; width: 16em; } th.comment, td.comment { color: #555; font-size: .9em; width: 14em; }
        td.value { cursor: text; } td.value.readonly { cursor: default; background: #fafafa; }
        td.value.missing { background: #fff4e5; } td.value.saving { opacity: .6; }
        .form { display: block; } .form.empty .text::after { content: '—'; color: #aaa; } .form .category { color: #666; font-size: .85em; margin-inline-end: .3em; }
        .diagnostic { display: block; font-size: .85em; color: #8a4b00; } .diagnostic.error { color: #b00020; }
        .missed { font-size: .8em; background: #e8f0fe; border-radius: .5em; padding: 0 .4em; }
        .notice { display: block; font-size: .85em; color: #b00020; }
        textarea { width: 100%; min-height: 3em; font: inherit; box-sizing: border-box; }
        .conflict button { margin-inline-end: .5em; }

        """

    static let script = #"""
        'use strict';
        // lprojd studio: the overview, a table's entries, editing, live updates.
        // Every value goes on the page with textContent: a translation is text, never markup.
        const state = { bundles: [], view: null, offset: 0, limit: 100, editing: null };

        function element(tag, attributes, ...children) {
          const node = document.createElement(tag);
          for (const [name, value] of Object.entries(attributes || {})) {
            if (name === 'class') node.className = value;
            else if (name === 'text') node.textContent = value;
            else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
            else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? '' : value);
          }
          for (const child of children) if (child !== null && child !== undefined) node.append(child);
          return node;
        }

        async function api(path, options) {
          const response = await fetch(path, Object.assign({ credentials: 'same-origin', headers: { 'Content-Type': 'application/json' } }, options));
          const body = await response.json().catch(() => ({}));
          return { status: response.status, body };
        }

        // The overview: every bundle, each language's coverage per table.
        async function showOverview() {
          state.view = null;
          document.getElementById('overview').hidden = false;
          document.getElementById('table-view').hidden = true;
          const { status, body } = await api('/api/bundles');
          const list = document.getElementById('bundles');
          list.replaceChildren();
          if (status !== 200) { list.append(element('p', { text: body.message || 'cannot list the bundles' })); return; }
          state.bundles = body.bundles;
          for (const bundle of body.bundles) {
            const section = element('section', { class: 'bundle', 'data-bundle': bundle.path },
              element('h3', { text: bundle.path }),
              element('p', { text: `development: ${bundle.development || 'none'} — checks: ${bundle.checks.errors} errors, ${bundle.checks.warnings} warnings` }));
            for (const language of bundle.languages) {
              for (const table of language.tables) {
                const row = element('div', { class: 'language', 'data-language': language.language, 'data-table': table.table },
                  element('span', { text: `${language.language} · ${table.table}` }),
                  element('progress', { value: table.translated, max: table.total, 'aria-valuenow': table.translated, 'aria-valuemax': table.total,
                                        'aria-label': `${language.language} ${table.table} translated` }),
                  element('span', {},
                    element('span', { class: 'counts', text: `${table.translated}/${table.total} translated, ${table.missing} missing, ${table.stale} stale, `
                      + `${table.missedAtRuntime} missed at runtime, ${language.diagnostics.errors} errors and ${language.diagnostics.warnings} warnings in ${language.language} ` }),
                    element('button', { type: 'button', text: 'Open', onclick: () => openTable(bundle.path, table.table, language.language) })));
                section.append(row);
              }
            }
            list.append(section);
          }
        }

        function openTable(bundle, table, language) {
          state.view = { bundle, table };
          state.offset = 0;
          document.getElementById('languages').value = language;
          document.getElementById('overview').hidden = true;
          document.getElementById('table-view').hidden = false;
          document.getElementById('table-title').textContent = `${table} — ${bundle}`;
          loadTable();
        }

        async function loadTable() {
          if (!state.view) return;
          // Only the newest request's answer is shown: an older one that comes later is dropped.
          const request = state.requests = (state.requests || 0) + 1;
          state.searched = document.getElementById('search').value;
          const parameters = new URLSearchParams({ bundle: state.view.bundle, table: state.view.table, offset: state.offset, limit: state.limit,
            filter: document.getElementById('filter').value, q: document.getElementById('search').value,
            languages: document.getElementById('languages').value });
          const { status, body } = await api('/api/table?' + parameters);
          if (request !== state.requests) return;
          const note = document.getElementById('table-status');
          if (status !== 200) { note.textContent = body.message || 'cannot read the table'; return; }
          note.textContent = `${body.total} ${body.total === 1 ? 'key' : 'keys'}`;
          state.table = body;
          renderTable(body);
        }

        function formsOf(value) {
          // A plain string, or a rule: its forms by variable and category.
          if (value === null || value === undefined) return null;
          if (typeof value === 'string') return [{ variable: null, category: null, text: value }];
          const forms = [];
          const collect = (variants, variable) => {
            if (typeof variants === 'string') { forms.push({ variable, category: null, text: variants }); return; }
            const cases = variants.plural || variants.device || {};
            for (const [category, text] of Object.entries(cases)) forms.push({ variable, category, text: typeof text === 'string' ? text : JSON.stringify(text) });
          };
          if (value.substitutions) for (const [name, substitution] of Object.entries(value.substitutions)) collect(substitution.variations, name);
          else collect(value.value, null);
          return forms;
        }

        function renderTable(body) {
          const head = document.querySelector('#entries thead'), rows = document.querySelector('#entries tbody');
          head.replaceChildren(element('tr', {}, element('th', { class: 'key', text: 'Key' }), element('th', { class: 'comment', text: 'Comment' }),
            element('th', { text: body.development || 'development' }),
            ...body.languages.map(column => element('th', { dir: column.direction, title: column.writable ? null : column.reason,
                                                          text: column.language + (column.writable ? '' : ' (read-only)') }))));
          rows.replaceChildren();
          for (const entry of body.entries) {
            const development = formsOf(entry.development);
            const row = element('tr', { 'data-key': entry.key }, element('td', { class: 'key', text: entry.key }),
              element('td', { class: 'comment', text: entry.comment || '' }),
              element('td', { text: development ? development.map(form => form.text).join('\n') : '' }));
            for (const column of body.languages) row.append(valueCell(body, column, entry));
            rows.append(row);
          }
          document.getElementById('page').textContent = body.total === 0 ? 'no keys'
            : `${body.offset + 1}–${Math.min(body.offset + body.limit, body.total)} of ${body.total}`;
        }

        function valueCell(body, column, entry) {
          const value = entry.values[column.language];
          const cell = element('td', { class: 'value' + (value === null ? ' missing' : '') + (column.writable ? '' : ' readonly'), dir: column.direction,
            'data-bundle': body.bundle, 'data-table': body.table, 'data-language': column.language, 'data-key': entry.key,
            'data-version': column.version });
          const forms = formsOf(value);
          const rule = formsOf(entry.development) || [];
          if ((forms && forms.some(form => form.category)) || rule.some(form => form.category)) {
            // One field per form the language's CLDR rules have (empty ones to fill), per variable.
            const variables = [...new Set((forms || []).concat(rule).filter(form => form.category).map(form => form.variable))];
            for (const variable of variables) {
              const have = (forms || []).filter(form => form.variable === variable && form.category);
              const categories = [...new Set(column.pluralCategories.concat(have.map(form => form.category)))];
              for (const category of categories) {
                const form = have.find(candidate => candidate.category === category);
                cell.append(element('span', { class: 'form' + (form ? '' : ' empty'), 'data-variable': variable, 'data-category': category },
                  element('span', { class: 'category', text: (variable ? variable + ' ' : '') + category }),
                  element('span', { class: 'text', text: form ? form.text : '' })));
              }
            }
          } else {
            cell.append(element('span', { class: 'text', text: forms ? forms[0].text : '' }));
          }
          for (const diagnostic of entry.diagnostics[column.language] || []) {
            cell.append(element('span', { class: 'diagnostic ' + diagnostic.severity, text: diagnostic.message }));
          }
          const missed = entry.missed[column.language];
          if (missed) cell.append(element('span', { class: 'missed', text: `missed ${missed}×` }));
          if (column.writable) cell.addEventListener('click', event => startEditing(cell, event));
          return cell;
        }

        function startEditing(cell, event) {
          if (state.editing) return;
          const form = event.target.closest('.form');
          const current = form ? form.querySelector('.text').textContent : (cell.querySelector('.text') || {}).textContent || '';
          const editor = element('textarea', { 'aria-label': `${cell.dataset.language} ${cell.dataset.key}` });
          editor.value = current;
          const saved = Array.from(cell.childNodes);
          state.editing = { cell, saved, form, version: cell.dataset.version };
          cell.replaceChildren(editor);
          editor.focus();
          editor.addEventListener('keydown', keyEvent => {
            if (keyEvent.key === 'Escape') { keyEvent.preventDefault(); stopEditing(); }
            else if (keyEvent.key === 'Enter' && !keyEvent.shiftKey) { keyEvent.preventDefault(); save(editor.value); }
          });
        }

        function stopEditing() {
          const editing = state.editing;
          if (!editing) return;
          state.editing = null;
          editing.cell.replaceChildren(...editing.saved);
        }

        async function save(value, version) {
          const editing = state.editing;
          const cell = editing.cell;
          const request = { bundle: cell.dataset.bundle, table: cell.dataset.table, language: cell.dataset.language, key: cell.dataset.key,
                            version: version || editing.version };
          if (editing.form && editing.form.dataset.category) {
            request.plural = { category: editing.form.dataset.category, value };
            if (editing.form.dataset.variable) request.plural.variable = editing.form.dataset.variable;
          } else {
            request.value = value;
          }
          cell.classList.add('saving');
          const { status, body } = await api('/api/entry', { method: 'PUT', body: JSON.stringify(request) });
          cell.classList.remove('saving');
          for (const old of cell.querySelectorAll('.notice, .conflict')) old.remove();
          if (status === 200) {
            state.editing = null;
            await loadTable();
          } else if (status === 409) {
            // Changed meanwhile: both values shown, nothing lost; the user chooses.
            const theirs = formsOf(body.current);
            cell.append(element('span', { class: 'conflict' },
              element('span', { class: 'notice', text: 'This text changed meanwhile. Now: ' + (theirs ? theirs.map(form => form.text).join(' / ') : '(removed)') }),
              element('button', { type: 'button', text: 'Keep mine', onclick: () => save(value, body.version) }),
              element('button', { type: 'button', text: 'Take theirs', onclick: () => { state.editing = null; loadTable(); } })));
          } else {
            const messages = (body.diagnostics || []).map(diagnostic => diagnostic.message);
            cell.append(element('span', { class: 'notice', text: messages.length ? messages.join('\n') : (body.message || `not saved (${status})`) }));
          }
        }

        function recordEdit(change) {
          const keys = Object.keys(change.added || {}).concat(Object.keys(change.changed || {}), change.removed || []);
          const list = document.getElementById('recent');
          list.prepend(element('li', { text: `${new Date().toLocaleTimeString()} ${change.language} ${change.table}: ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? '…' : ''}` }));
          while (list.children.length > 20) list.lastChild.remove();
        }

        function follow() {
          const events = new EventSource('/api/events');
          const connection = document.getElementById('connection');
          events.addEventListener('daemon', message => {
            const connected = JSON.parse(message.data).connected;
            connection.textContent = connected ? 'following lprojd' : 'lprojd is not answering';
            connection.classList.toggle('offline', !connected);
          });
          events.addEventListener('table-changed', message => {
            const change = JSON.parse(message.data);
            recordEdit(change);
            if (state.view && change.bundle === state.view.bundle && change.table === state.view.table) {
              if (state.editing && state.editing.cell.dataset.language === change.language) {
                const key = state.editing.cell.dataset.key;
                if ((change.changed && key in change.changed) || (change.added && key in change.added) || (change.removed || []).includes(key)) {
                  state.editing.cell.append(element('span', { class: 'notice', text: 'The file changed while you edit: saving will ask which to keep.' }));
                }
                return;
              }
              loadTable();
            } else if (!state.view) {
              showOverview();
            }
          });
          for (const name of ['diagnostics', 'misses']) {
            events.addEventListener(name, () => { if (state.view && !state.editing) loadTable(); else if (!state.view) showOverview(); });
          }
          events.onerror = () => { connection.textContent = 'reconnecting…'; connection.classList.add('offline'); };
        }

        document.addEventListener('DOMContentLoaded', () => {
          document.getElementById('home').addEventListener('click', event => { event.preventDefault(); showOverview(); });
          for (const id of ['filter', 'languages']) document.getElementById(id).addEventListener('change', () => { state.offset = 0; loadTable(); });
          // Enter (or leaving the box) searches at once — unless the table already shows that search.
          document.getElementById('search').addEventListener('change', () => {
            clearTimeout(typing);
            if (document.getElementById('search').value === state.searched) return;
            state.offset = 0;
            loadTable();
          });
          // The search follows typing (a moment after the last key), not only Enter.
          var typing;
          document.getElementById('search').addEventListener('input', () => {
            clearTimeout(typing);
            typing = setTimeout(() => { state.offset = 0; loadTable(); }, 150);
          });
          document.getElementById('controls').addEventListener('submit', event => { event.preventDefault(); loadTable(); });
          document.getElementById('pseudo').addEventListener('change', event => {
            const languages = document.getElementById('languages');
            const chosen = languages.value.split(',').filter(name => name && !/^(en-X[ADE]|ar-XB)$/.test(name));
            if (event.target.value) chosen.push(event.target.value);
            languages.value = chosen.join(',');
            loadTable();
          });
          document.getElementById('previous').addEventListener('click', () => { state.offset = Math.max(0, state.offset - state.limit); loadTable(); });
          document.getElementById('next').addEventListener('click', () => {
            if (state.table && state.offset + state.limit < state.table.total) { state.offset += state.limit; loadTable(); }
          });
          showOverview();
          follow();
        });

        """#
}
