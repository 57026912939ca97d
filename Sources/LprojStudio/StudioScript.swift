extension StudioAssets {
    /// The page's script: the overview, a table's entries navigated from the
    /// keyboard, the editor pane, live updates. Every value goes on the page
    /// with `textContent`: a translation is text, never markup.
    static let script = #"""
        'use strict';
        const state = { view: null, offset: 0, limit: 100, table: null, active: null, editor: null,
                        drafts: new Map(), lastSave: null, requests: 0, lastField: null, confirmed: new Set() };
        const $ = id => document.getElementById(id);
        // A rule's %#@variable@, and printf's conversions (positional or not, with flags, width, precision, length).
        const placeholderPattern = /%#@[A-Za-z0-9_]+@|%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|q|z|t|j|L)?[@dDiuUxXoOfFeEgGcCsSpaA]|%%/g;
        const statusLabels = { missing: 'missing', new: 'new', needs_review: 'needs review', stale: 'stale', unchanged: 'same as source', outdated: 'outdated', draft: 'unsaved draft' };

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

        function plural(count, one, many) { return `${count} ${count === 1 ? one : many}`; }

        // Text with its placeholders as chips: each its own element, the rest text nodes.
        function withChips(text) {
          const nodes = [];
          let last = 0;
          for (const match of String(text).matchAll(placeholderPattern)) {
            if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
            nodes.push(element('span', { class: 'chip', text: match[0] }));
            last = match.index + match[0].length;
          }
          if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
          return nodes;
        }

        function placeholders(text) { return [...new Set(String(text || '').match(placeholderPattern) || [])].filter(found => found !== '%%'); }

        // An entry as the page works with it: its format (a rule's), its forms by variable and category, its state.
        function shape(value) {
          if (value === null || value === undefined) return null;
          if (typeof value === 'string') return { format: null, text: value, forms: [], state: 'translated' };
          const forms = [];
          const collect = (variants, variable) => {
            if (typeof variants === 'string') { forms.push({ variable, category: null, text: variants }); return; }
            const cases = (variants && (variants.plural || variants.device)) || {};
            for (const [category, text] of Object.entries(cases)) forms.push({ variable, category, text: typeof text === 'string' ? text : JSON.stringify(text) });
          };
          let format = null, text = null;
          if (value.substitutions && Object.keys(value.substitutions).length) {
            format = typeof value.value === 'string' ? value.value : null;
            for (const [name, substitution] of Object.entries(value.substitutions)) collect(substitution.variations, name);
          } else if (typeof value.value === 'string') {
            text = value.value;
          } else {
            collect(value.value, null);
          }
          return { format, text, forms, state: value.state || 'translated' };
        }

        function shownText(shaped) {
          if (!shaped) return '';
          if (shaped.text !== null) return shaped.text;
          return shaped.forms.map(form => form.text).join('\n');
        }

        // ---- Addresses: every view has one (bookmarkable; Back and Forward walk them).

        function address() {
          if (!state.view) return '#/';
          const parameters = new URLSearchParams({ bundle: state.view.bundle, table: state.view.table });
          const languages = $('languages').value, filter = $('filter').value, query = $('search').value;
          if (languages) parameters.set('languages', languages);
          if (filter !== 'all') parameters.set('filter', filter);
          if (query) parameters.set('q', query);
          if (state.offset) parameters.set('offset', state.offset);
          return '#/table?' + parameters;
        }

        function remember(push) {
          const next = address();
          if (location.hash === next) return;
          if (push) history.pushState(null, '', next); else history.replaceState(null, '', next);
        }

        function route() {
          const hash = location.hash;
          if (hash.startsWith('#/table?')) {
            const parameters = new URLSearchParams(hash.slice('#/table?'.length));
            $('languages').value = parameters.get('languages') || '';
            $('filter').value = parameters.get('filter') || 'all';
            $('search').value = parameters.get('q') || '';
            state.offset = Math.max(0, parseInt(parameters.get('offset') || '0', 10) || 0);
            showTable(parameters.get('bundle') || '', parameters.get('table') || 'Localizable');
          } else {
            showOverview();
          }
        }

        // ---- The overview: one row per language, its tables under it.

        async function showOverview() {
          state.view = null;
          closeEditor(false);
          $('overview').hidden = false;
          $('table-view').hidden = true;
          document.title = 'lprojd studio';
          remember(false);
          const request = ++state.requests;
          const { status, body } = await api('/api/bundles');
          if (request !== state.requests || state.view) return;
          const list = $('bundles');
          list.replaceChildren();
          if (status !== 200) { list.append(element('p', { text: body.message || 'cannot list the bundles' })); return; }
          for (const bundle of body.bundles) list.append(bundleSection(bundle));
        }

        function bundleSection(bundle) {
          const section = element('section', { class: 'bundle', 'data-bundle': bundle.path, 'aria-label': bundle.path },
            element('h3', { text: bundle.path }),
            element('p', { text: `Source language: ${bundle.developmentName || bundle.development || 'none'} — `
              + `checks: ${plural(bundle.checks.errors, 'error', 'errors')}, ${plural(bundle.checks.warnings, 'warning', 'warnings')}` }));
          const rows = element('ul', { class: 'languages' });
          for (const language of bundle.languages) {
            const total = language.tables.reduce((sum, table) => sum + table.total, 0);
            const translated = language.tables.reduce((sum, table) => sum + table.translated, 0);
            const words = language.tables.reduce((sum, table) => sum + table.missingWords, 0);
            const missed = language.tables.reduce((sum, table) => sum + table.missedAtRuntime, 0);
            const percent = total ? Math.floor(100 * translated / total) : 100;
            const issues = language.diagnostics.errors + language.diagnostics.warnings;
            const isSource = language.language === bundle.development;
            const tables = element('ul', { class: 'tables' });
            for (const table of language.tables) {
              const link = element('a', { href: '#/table?' + new URLSearchParams({ bundle: bundle.path, table: table.table, languages: language.language }),
                'aria-label': `Open ${table.table} in ${language.name}`, text: table.table });
              tables.append(element('li', { class: 'table-row', 'data-language': language.language, 'data-table': table.table }, link,
                element('progress', { value: table.translated, max: table.total, 'aria-label': `${language.name} ${table.table}: ${table.translated} of ${table.total} translated` }),
                element('span', { class: 'counts', text: `${table.translated} of ${table.total} translated`
                  + (table.missing ? `, ${table.missing} missing` : '') + (table.stale ? `, ${table.stale} stale` : '')
                  + (table.unchanged ? `, ${table.unchanged} same as source` : '')
                  + (table.missedAtRuntime ? `, missed ${table.missedAtRuntime}× at runtime` : '') })));
            }
            // A bundle of many tables lists them folded: the languages stay one screen.
            const folded = language.tables.length > 6;
            rows.append(element('li', { class: 'language', 'data-language': language.language },
              element('h4', {}, element('span', { class: 'name', text: language.name }), ' ', element('code', { text: language.language }),
                isSource ? element('span', { class: 'badge source', text: 'source' }) : null),
              element('p', { class: 'summary', text: `${percent}% translated · ${plural(words, 'word', 'words')} left · `
                + `${plural(issues, 'issue', 'issues')}` + (missed ? ` · missed ${missed}× at runtime` : '') }),
              folded ? element('details', {}, element('summary', { text: `${plural(language.tables.length, 'table', 'tables')}` }), tables) : tables));
          }
          section.append(rows);
          return section;
        }

        // ---- A table.

        async function showTable(bundle, table) {
          const same = state.view && state.view.bundle === bundle && state.view.table === table;
          if (!same) closeEditor(false);
          state.view = { bundle, table };
          $('overview').hidden = true;
          $('table-view').hidden = false;
          $('table-title').textContent = `${table} — ${bundle}`;
          document.title = `${table} — lprojd studio`;
          await loadTable();
        }

        async function loadTable() {
          if (!state.view) return null;
          // Only the newest request's answer is shown: an older one that comes later is dropped.
          const request = ++state.requests;
          state.searched = $('search').value;
          remember(false);
          const parameters = new URLSearchParams({ bundle: state.view.bundle, table: state.view.table, offset: state.offset, limit: state.limit,
            filter: $('filter').value, q: $('search').value, languages: $('languages').value });
          const { status, body } = await api('/api/table?' + parameters);
          if (request !== state.requests || !state.view) return null;
          if (status !== 200) { $('table-status').textContent = body.message || 'cannot read the table'; return null; }
          $('table-status').textContent = body.total === 0 ? 'no keys' : plural(body.total, 'key', 'keys');
          state.table = body;
          confirmNewLanguages(body);
          renderBanner(body);
          renderTable(body);
          loadUnknown();
          return body;
        }

        // Keys apps asked for that no language of the table has, each to add in the source language.
        async function loadUnknown() {
          if (!state.view) return;
          const view = state.view;
          const { status, body } = await api('/api/misses?' + new URLSearchParams({ bundle: view.bundle, table: view.table }));
          if (state.view !== view) return;
          const section = $('unknown'), rows = document.querySelector('#unknown-keys tbody');
          if (status !== 200 || !body.unknown.length) { section.hidden = true; rows.replaceChildren(); return; }
          section.hidden = false;
          $('unknown-summary').textContent = `${plural(body.total, 'key', 'keys')} apps asked for that no language has`;
          rows.replaceChildren(...body.unknown.map(miss => element('tr', { 'data-key': miss.key },
            element('td', { class: 'key', text: miss.key }), element('td', { text: `${miss.count}×` }),
            element('td', { text: miss.apps.join(', ') || '—' }), element('td', { text: miss.languages.join(', ') || '—' }),
            element('td', { text: new Date(miss.firstSeen).toLocaleString() }), element('td', { text: new Date(miss.lastSeen).toLocaleString() }),
            element('td', {}, element('button', { type: 'button', text: 'Add…', 'aria-label': `Add ${miss.key}`, onclick: event => addForm(event.target, miss.key, body) })))));
        }

        let addCount = 0;
        function addForm(button, key, body) {
          const id = 'add-' + (++addCount);
          const input = element('input', { id, value: key, lang: body.development || null });
          const message = element('span', { role: 'status' });
          const form = element('form', {}, element('label', { for: id, text: `${body.development || 'Source'} text` }), input,
            element('button', { type: 'submit', text: 'Save' }), message);
          form.addEventListener('submit', async event => {
            event.preventDefault();
            const { status, body: answer } = await api('/api/entry', { method: 'PUT', body: JSON.stringify({ bundle: body.bundle, table: body.table,
              language: body.development, key, value: input.value, entryVersion: '0000000000000000' }) });
            if (status === 200) { $('save-status').textContent = `Added ${key}.`; await loadTable(); }
            else message.textContent = (answer.diagnostics || []).map(d => d.message).join('\n') || answer.message || `not saved (${status})`;
          });
          button.parentElement.replaceChildren(form);
          input.focus();
          input.select();
        }

        // A language the bundle does not have yet is written only once the user says so: a typo must not make a localization.
        function confirmNewLanguages(body) {
          const box = $('new-languages');
          box.replaceChildren();
          for (const column of body.languages) {
            if (column.exists || !column.writable) continue;
            const id = body.bundle + '\u0000' + column.language;
            if (state.confirmed.has(id)) continue;
            column.writable = false;
            column.reason = 'not a localization of this bundle yet: add it above first';
            box.append(element('p', {}, `${column.name} (${column.language}) is not a localization of this bundle yet: its first save will make ${column.language}.lproj. `,
              element('button', { type: 'button', text: `Add ${column.name}`, onclick: () => { state.confirmed.add(id); loadTable(); } })));
          }
          box.hidden = box.children.length === 0;
        }

        // A table that stopped parsing on disk: where, and that the page shows its last good text meanwhile.
        function renderBanner(body) {
          const banner = $('invalid');
          banner.replaceChildren();
          const broken = body.languages.filter(column => column.invalid && column.invalid.length);
          for (const column of broken) {
            const first = column.invalid[0];
            banner.append(element('p', { text: `${first.file}:${first.line}:${first.column}: ${first.message}` }),
              element('p', { text: `${column.name} shows its last good text until the file parses again`
                + (column.invalid.length > 1 ? ` (${column.invalid.length - 1} more errors)` : '') + '.' }));
          }
          banner.hidden = broken.length === 0;
        }

        function renderTable(body) {
          const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest('#entries td.value') : null;
          const head = document.querySelector('#entries thead'), rows = document.querySelector('#entries tbody');
          const comments = body.entries.some(entry => entry.comment);
          const sourceName = body.developmentName || body.development || 'Source';
          head.replaceChildren(element('tr', {}, element('th', { class: 'key', scope: 'col', text: 'Key' }),
            comments ? element('th', { class: 'comment', scope: 'col', text: 'Comment' }) : null,
            element('th', { class: 'source', scope: 'col', text: `${sourceName} (source)` }),
            ...body.languages.map(column => element('th', { scope: 'col', dir: column.direction, lang: column.language, title: column.writable ? null : column.reason,
              'data-language': column.language, text: `${column.name} (${column.language})` + (column.writable ? '' : ', read-only') }))));
          rows.replaceChildren();
          for (const entry of body.entries) {
            const source = shape(entry.development);
            const row = element('tr', { 'data-key': entry.key }, element('th', { class: 'key', scope: 'row', 'data-label': 'Key', text: entry.key }),
              comments ? element('td', { class: 'comment' + (entry.comment ? '' : ' empty'), 'data-label': 'Comment', text: entry.comment || '' }) : null,
              element('td', { class: 'source', 'data-label': sourceName, lang: body.development || null }, ...withChips(shownText(source))));
            for (const column of body.languages) row.append(valueCell(body, column, entry));
            rows.append(row);
          }
          $('page').textContent = body.total === 0 ? 'no keys'
            : `${body.offset + 1}–${Math.min(body.offset + body.limit, body.total)} of ${body.total}`;
          $('previous').disabled = body.offset === 0;
          $('next').disabled = body.offset + body.limit >= body.total;
          // The roving tab stop stays where it was, and so does the focus.
          const cell = (state.active && findCell(state.active.key, state.active.language)) || document.querySelector('#entries td.value');
          if (cell) activate(cell, focused !== null);
          if (state.editor) {
            const editing = findCell(state.editor.key, state.editor.language);
            if (editing) editing.classList.add('editing');
          }
        }

        function valueCell(body, column, entry) {
          const value = entry.values[column.language];
          const id = column.language + '\u0000' + entry.key;
          const status = state.drafts.has(id) ? 'draft' : (entry.statuses[column.language] || 'translated');
          const cell = element('td', { class: `value ${status}` + (column.writable ? '' : ' readonly'), dir: column.direction, lang: column.language,
            tabindex: '-1', 'data-label': `${column.name} (${column.language})`, 'data-bundle': body.bundle, 'data-table': body.table,
            'data-language': column.language, 'data-key': entry.key, 'data-status': status });
          if (status !== 'translated') cell.append(element('span', { class: `badge ${status}`, text: statusLabels[status] || status }));
          const shaped = shape(value);
          if (shaped && shaped.forms.some(form => form.category)) {
            if (shaped.format !== null) cell.append(element('span', { class: 'form format' }, element('span', { class: 'category', text: 'format' }),
              element('span', { class: 'text' }, ...withChips(shaped.format))));
            for (const form of shaped.forms) {
              cell.append(element('span', { class: 'form', 'data-variable': form.variable, 'data-category': form.category },
                element('span', { class: 'category', text: (form.variable ? form.variable + ' ' : '') + form.category }),
                element('span', { class: 'text' }, ...withChips(form.text))));
            }
          } else {
            cell.append(element('span', { class: 'text' }, ...withChips(shownText(shaped))));
          }
          for (const diagnostic of entry.diagnostics[column.language] || []) {
            cell.append(element('span', { class: 'diagnostic ' + diagnostic.severity, text: diagnostic.message }));
          }
          const missed = entry.missed[column.language];
          if (missed) cell.append(element('span', { class: 'missed', text: `missed ${missed}×` }));
          return cell;
        }

        // ---- Moving in the table: one tab stop (the active cell), arrows between cells.

        function findCell(key, language) {
          for (const cell of document.querySelectorAll('#entries td.value')) if (cell.dataset.key === key && cell.dataset.language === language) return cell;
          return null;
        }

        function activate(cell, focus) {
          for (const other of document.querySelectorAll('#entries td.value[tabindex="0"]')) other.tabIndex = -1;
          cell.tabIndex = 0;
          state.active = { key: cell.dataset.key, language: cell.dataset.language };
          if (focus) cell.focus();
        }

        function neighbour(cell, rows, columns) {
          const row = cell.parentElement;
          if (columns) {
            const cells = Array.from(row.querySelectorAll('td.value'));
            return cells[cells.indexOf(cell) + columns] || null;
          }
          let next = row;
          for (let step = 0; step < Math.abs(rows); step++) next = next && (rows > 0 ? next.nextElementSibling : next.previousElementSibling);
          if (!next) return null;
          for (const candidate of next.querySelectorAll('td.value')) if (candidate.dataset.language === cell.dataset.language) return candidate;
          return null;
        }

        function tableKeys(event) {
          const cell = event.target.closest('td.value');
          if (!cell) return;
          let target = null;
          const forward = getComputedStyle(cell).direction === 'rtl' ? -1 : 1;
          switch (event.key) {
            case 'ArrowDown': target = neighbour(cell, 1, 0); break;
            case 'ArrowUp': target = neighbour(cell, -1, 0); break;
            case 'ArrowRight': target = neighbour(cell, 0, forward); break;
            case 'ArrowLeft': target = neighbour(cell, 0, -forward); break;
            case 'Home': target = cell.parentElement.querySelector('td.value'); break;
            case 'End': target = Array.from(cell.parentElement.querySelectorAll('td.value')).pop(); break;
            case 'Enter': case 'F2': event.preventDefault(); openEditor(cell); return;
            default: return;
          }
          event.preventDefault();
          if (target) activate(target, true);
        }

        // ---- The editor pane.

        function openEditor(cell) {
          keepDraft();
          activate(cell, false);
          const entry = state.table && state.table.entries.find(candidate => candidate.key === cell.dataset.key);
          const column = state.table && state.table.languages.find(candidate => candidate.language === cell.dataset.language);
          if (!entry || !column) return;
          for (const old of document.querySelectorAll('#entries td.editing')) old.classList.remove('editing');
          cell.classList.add('editing');
          state.editor = { id: column.language + '\u0000' + entry.key, bundle: state.table.bundle, table: state.table.table, key: entry.key,
            language: column.language, column, source: entry.development, value: entry.values[column.language],
            entryVersion: entry.versions[column.language], sourceVersion: entry.sourceVersion, saving: false };
          renderEditor(entry);
          $('workspace').classList.add('editing');
          $('editor').hidden = false;
          const first = $('editor-fields').querySelector('textarea');
          if (first && !first.readOnly) first.focus(); else $('editor-title').focus();
          loadDetails(state.editor);
          loadSuggestions(state.editor);
        }

        // The translation memory's offers for a plain source text: the same text translated elsewhere, then the most alike.
        async function loadSuggestions(editor) {
          const box = $('editor-suggestions');
          box.replaceChildren();
          const source = shape(editor.source);
          if (!source || source.text === null || !source.text || !editor.column.writable) return;
          const parameters = new URLSearchParams({ bundle: editor.bundle, table: editor.table, key: editor.key, language: editor.language, q: source.text });
          const { status, body } = await api('/api/suggestions?' + parameters);
          if (state.editor !== editor || status !== 200 || !body.suggestions.length) return;
          box.append(element('h3', { text: 'Suggestions' }), element('ol', { class: 'suggestions' }, ...body.suggestions.map((offer, index) => {
            const theirs = offer.differences.length ? element('span', { class: 'theirs' }, 'its source: ',
              ...offer.differences.map(part => part.kind === 'same' ? document.createTextNode(part.text)
                : element(part.kind === 'other' ? 'del' : 'ins', { text: part.text, title: part.kind === 'other' ? 'only in its source' : 'only in yours' }))) : null;
            return element('li', { 'data-similarity': offer.similarity },
              element('button', { type: 'button', class: 'use', 'aria-keyshortcuts': index < 9 ? `Control+Alt+${index + 1}` : null,
                'aria-label': `Use suggestion ${index + 1}: ${offer.text}`, text: 'Use', onclick: () => useSuggestion(offer.text) }), ' ',
              element('span', { class: 'text', lang: editor.language, dir: editor.column.direction }, ...withChips(offer.text)),
              element('span', { class: 'score', text: offer.similarity === 1 ? `same source${offer.uses > 1 ? `, ${offer.uses}×` : ''}` : `${Math.round(offer.similarity * 100)}% alike` }),
              element('span', { class: 'from', text: `${offer.table} · ${offer.key}` + (offer.bundle === editor.bundle ? '' : ` · ${offer.bundle}`) }),
              theirs);
          })));
        }

        function useSuggestion(text) {
          const area = fieldsOf().find(candidate => candidate.dataset.kind === 'text');
          if (!area || area.readOnly) return;
          area.value = text;
          area.dispatchEvent(new Event('input'));
          area.focus();
        }

        function renderEditor(entry) {
          const editor = state.editor, column = editor.column;
          $('editor-title').textContent = editor.key;
          $('editor-language').textContent = `${column.name} (${column.language})` + (column.writable ? '' : ` — read-only: ${column.reason}`);
          const source = shape(editor.source), value = shape(editor.value);
          $('editor-source').replaceChildren(...(source ? sourceLines(source) : [element('span', { class: 'none', text: 'no source text' })]));
          $('editor-source').lang = state.table.development || '';
          renderReview(entry.statuses[column.language]);
          $('editor-comment').textContent = entry.comment || '';
          $('editor-comment').hidden = !entry.comment;
          $('editor-message').replaceChildren();
          $('editor-details').replaceChildren(element('p', { class: 'loading', text: 'Loading the other languages and the history…' }));
          const fields = $('editor-fields');
          fields.replaceChildren();
          const draft = state.drafts.get(editor.id);
          const isRule = (source && source.forms.some(form => form.category)) || (value && value.forms.some(form => form.category));
          if (isRule) {
            const forms = (value ? value.forms : []).filter(form => form.category);
            const model = (source ? source.forms : []).filter(form => form.category);
            const variables = [...new Set(forms.concat(model).map(form => form.variable))];
            for (const variable of variables) {
              const have = forms.filter(form => form.variable === variable);
              const categories = [...new Set(column.pluralCategories.concat(have.map(form => form.category)))];
              const group = element('fieldset', { class: 'forms' }, element('legend', { text: variable ? `Plural forms of ${variable}` : 'Plural forms' }));
              for (const category of categories) {
                const form = have.find(candidate => candidate.category === category);
                group.append(field({ kind: 'form', variable, category, label: category, text: form ? form.text : '' }, draft));
              }
              fields.append(group);
            }
            const format = (value && value.format) || (source && source.format);
            if (format !== null && format !== undefined) fields.append(field({ kind: 'format', label: `Format: the text naming the plural variables (left empty: ${(source && source.format) || 'the source\'s'})`,
              text: (value && value.format) || '' }, draft));
          } else {
            fields.append(field({ kind: 'text', label: `Translation in ${column.name}`, text: value ? shownText(value) : '' }, draft));
          }
          const chips = $('editor-chips');
          chips.replaceChildren();
          const found = placeholders(source ? [source.format || '', shownText(source)].join('\n') : '');
          found.forEach((placeholder, index) => chips.append(element('button', { type: 'button', class: 'chip', 'data-placeholder': placeholder,
            'aria-keyshortcuts': index < 9 ? `Control+Shift+${index + 1}` : null, title: index < 9 ? `Ctrl+Shift+${index + 1}` : null,
            text: placeholder, onclick: () => insertPlaceholder(placeholder) })));
          $('editor-chips-group').hidden = found.length === 0;
          for (const button of ['editor-save', 'editor-next', 'editor-copy']) $(button).disabled = !column.writable;
          markPlaceholders();
        }

        // A catalog's state, and "Mark reviewed" for a text waiting for a review (the text as it is).
        function renderReview(status) {
          const editor = state.editor, review = $('editor-review');
          review.replaceChildren();
          if (!['new', 'needs_review', 'stale'].includes(status) || editor.value === null) return;
          review.append(element('span', { class: `badge ${status}`, text: statusLabels[status] }));
          if (!editor.column.writable) return;
          review.append(element('button', { type: 'button', id: 'editor-reviewed', text: 'Mark reviewed', onclick: async () => {
            const { status: answer, body } = await api('/api/entry', { method: 'PUT', body: JSON.stringify({ bundle: editor.bundle, table: editor.table,
              language: editor.language, key: editor.key, state: 'translated', entryVersion: editor.entryVersion }) });
            if (state.editor !== editor) return;
            if (answer !== 200) { refusal(answer, body); return; }
            editor.entryVersion = body.entryVersion;
            editor.value = body.entry;
            renderReview('translated');
            (fieldsOf()[0] || $('editor-title')).focus();
            say('Marked reviewed.', false);
            await loadTable();
          } }));
        }

        function sourceLines(source) {
          const lines = [];
          if (source.format) lines.push(element('span', { class: 'form format' }, element('span', { class: 'category', text: 'format' }), ...withChips(source.format)));
          if (source.text !== null) lines.push(element('span', { class: 'form' }, ...withChips(source.text)));
          for (const form of source.forms) lines.push(element('span', { class: 'form' },
            element('span', { class: 'category', text: (form.variable ? form.variable + ' ' : '') + (form.category || '') }), ...withChips(form.text)));
          return lines;
        }

        let fieldCount = 0;
        function field(spec, draft) {
          const id = 'field-' + (++fieldCount);
          const name = `${spec.kind}:${spec.variable || ''}:${spec.category || ''}`;
          const area = element('textarea', { id, rows: '2', dir: state.editor.column.direction, lang: state.editor.language, 'data-kind': spec.kind,
            'data-variable': spec.variable, 'data-category': spec.category, 'data-name': name, 'aria-describedby': 'editor-keys' });
          area.value = draft && draft.has(name) ? draft.get(name) : spec.text;
          area.dataset.original = spec.text;
          area.readOnly = !state.editor.column.writable;
          const preview = element('div', { class: 'preview', 'aria-hidden': 'true' });
          const update = () => { grow(area); preview.replaceChildren(...withChips(area.value)); markPlaceholders(); };
          area.addEventListener('input', update);
          area.addEventListener('focus', () => { state.lastField = area; markPlaceholders(); });
          setTimeout(update);
          return element('div', { class: 'field' }, element('label', { for: id, text: spec.label }), area, preview);
        }

        // The field as tall as its text, so a long value is read whole.
        function grow(area) {
          area.style.height = 'auto';
          area.style.height = Math.min(area.scrollHeight + 2, window.innerHeight * 0.6) + 'px';
        }

        function fieldsOf() { return Array.from($('editor-fields').querySelectorAll('textarea')); }
        function changedFields() { return fieldsOf().filter(area => area.value !== area.dataset.original); }

        function markPlaceholders() {
          const area = state.lastField && state.lastField.isConnected ? state.lastField : fieldsOf()[0];
          const text = area ? area.value : '';
          for (const chip of $('editor-chips').querySelectorAll('button.chip')) {
            const used = text.includes(chip.dataset.placeholder);
            chip.classList.toggle('used', used);
            chip.setAttribute('aria-label', `Insert ${chip.dataset.placeholder}` + (used ? '' : ' (not in the translation yet)'));
          }
        }

        function insertPlaceholder(placeholder) {
          const area = state.lastField && state.lastField.isConnected ? state.lastField : fieldsOf()[0];
          if (!area || area.readOnly) return;
          const start = area.selectionStart, end = area.selectionEnd;
          area.setRangeText(placeholder, start, end, 'end');
          area.dispatchEvent(new Event('input'));
          area.focus();
        }

        // The source's text put into the fields: each form from the source's form of that category (else its 'other').
        function copySource() {
          const source = shape(state.editor.source);
          if (!source) return;
          for (const area of fieldsOf()) {
            if (area.readOnly) continue;
            if (area.dataset.kind === 'text') area.value = shownText(source);
            else if (area.dataset.kind === 'format') area.value = source.format || '';
            else {
              const forms = source.forms.filter(form => form.variable === (area.dataset.variable || null) || !area.dataset.variable);
              const form = forms.find(candidate => candidate.category === area.dataset.category) || forms.find(candidate => candidate.category === 'other');
              if (form) area.value = form.text;
            }
            area.dispatchEvent(new Event('input'));
          }
          (fieldsOf()[0] || $('editor-title')).focus();
        }

        // Unsaved text is kept when the editor moves to another cell, and given back when it returns.
        function keepDraft() {
          const editor = state.editor;
          if (!editor) return;
          const changed = changedFields();
          if (changed.length) state.drafts.set(editor.id, new Map(changed.map(area => [area.dataset.name, area.value])));
          else state.drafts.delete(editor.id);
          const cell = findCell(editor.key, editor.language);
          if (cell && changed.length) { cell.dataset.status = 'draft'; }
        }

        function closeEditor(focusCell) {
          const editor = state.editor;
          state.editor = null;
          $('editor').hidden = true;
          $('workspace').classList.remove('editing');
          for (const old of document.querySelectorAll('#entries td.editing')) old.classList.remove('editing');
          if (editor && focusCell) {
            const cell = findCell(editor.key, editor.language);
            if (cell) activate(cell, true);
          }
        }

        function cancelEditor() {
          if (state.editor) state.drafts.delete(state.editor.id);
          closeEditor(true);
          if (state.table) renderTable(state.table);
        }

        async function loadDetails(editor) {
          const parameters = new URLSearchParams({ bundle: editor.bundle, table: editor.table, key: editor.key, language: editor.language });
          const { status, body } = await api('/api/entry?' + parameters);
          if (state.editor !== editor) return;
          const details = $('editor-details');
          details.replaceChildren();
          if (status !== 200) { details.append(element('p', { text: body.message || 'cannot read the key' })); return; }
          if (body.diagnostics.length) {
            details.append(element('h4', { text: 'Checks' }),
              element('ul', { class: 'diagnostics' }, ...body.diagnostics.map(diagnostic => element('li', { class: 'diagnostic ' + diagnostic.severity,
                text: `${diagnostic.severity}: ${diagnostic.message}` + (diagnostic.hint ? ` — ${diagnostic.hint}` : '') }))));
          }
          details.append(element('h4', { text: 'Other languages' }));
          if (body.others.length) {
            details.append(element('dl', { class: 'others' }, ...body.others.flatMap(other => [
              element('dt', { text: `${other.name} (${other.language})` }),
              element('dd', { dir: other.direction, lang: other.language }, ...withChips(shownText(shape(other.value))))])));
          } else {
            details.append(element('p', { text: 'No other language has this key.' }));
          }
          details.append(element('h4', { text: 'History' }));
          if (body.history.unavailable) {
            details.append(element('p', { class: 'history-none', text: `No history: ${body.history.unavailable}.` }));
          } else if (!body.history.changes.length) {
            details.append(element('p', { class: 'history-none', text: 'No commit changed this text yet.' }));
          } else {
            details.append(element('ol', { class: 'history' }, ...body.history.changes.map(change => element('li', {},
              element('span', { class: 'who', text: `${change.author}, ${new Date(change.date).toLocaleString()}` }), ' ',
              element('span', { class: 'subject', text: change.subject }),
              element('span', { class: 'what', dir: editor.column.direction, lang: editor.language },
                ...(change.value === null ? [document.createTextNode('(removed)')] : withChips(shownText(shape(change.value)))))))));
          }
        }

        // Saves the changed fields (plural forms first: they make the rule its format names), each expecting the key as the
        // page saw it; then closes the editor on the cell (move 0), or opens the next cell (move 'next'), or a neighbour (±1).
        async function saveEditor(move) {
          const editor = state.editor;
          if (!editor || editor.saving) return;
          if (!editor.column.writable) { say(`${editor.column.language} is read-only: ${editor.column.reason}`, true); return; }
          const changed = changedFields().sort((a, b) => (a.dataset.kind === 'format') - (b.dataset.kind === 'format'));
          if (!changed.length) { await moveFrom(editor, move); return; }
          editor.saving = true;
          const cell = findCell(editor.key, editor.language);
          if (cell) cell.classList.add('saving');
          const undo = { bundle: editor.bundle, table: editor.table, language: editor.language, key: editor.key, created: editor.value === null, steps: [] };
          // One request for the key: its changed forms and format at once (one write, one expectation), or its text.
          const request = { bundle: editor.bundle, table: editor.table, language: editor.language, key: editor.key,
                            entryVersion: editor.entryVersion, sourceVersion: editor.sourceVersion };
          const forms = changed.filter(area => area.dataset.kind === 'form');
          if (forms.length) request.forms = forms.map(area => Object.assign({ category: area.dataset.category, value: area.value },
                                                                              area.dataset.variable ? { variable: area.dataset.variable } : {}));
          const text = changed.find(area => area.dataset.kind !== 'form');
          if (text) request.value = text.value;
          const { status, body } = await api('/api/entry', { method: 'PUT', body: JSON.stringify(request) });
          if (state.editor !== editor) return;
          const failed = status !== 200;
          if (failed) {
            refusal(status, body);
          } else {
            editor.entryVersion = body.entryVersion;
            editor.value = body.entry;
            for (const area of changed) {
              undo.steps.push({ kind: area.dataset.kind, variable: area.dataset.variable || null, category: area.dataset.category || null, old: area.dataset.original });
              area.dataset.original = area.value;
            }
          }
          editor.saving = false;
          if (cell && cell.isConnected) cell.classList.remove('saving');
          if (undo.steps.length) {
            undo.entryVersion = editor.entryVersion;
            state.lastSave = undo;
            $('undo').disabled = false;
            $('save-status').textContent = `Saved ${editor.key} in ${editor.column.name}.`;
          }
          if (failed) return;
          state.drafts.delete(editor.id);
          await loadTable();
          if (state.editor === editor) await moveFrom(editor, move);
        }

        async function moveFrom(editor, move) {
          if (!move) { closeEditor(true); return; }
          let target = null;
          const cell = findCell(editor.key, editor.language);
          if (move === 'next') target = await nextCell(editor);
          else if (cell) target = neighbour(cell, move, 0);
          if (target) openEditor(target);
          else if (move === 'next') { closeEditor(true); $('save-status').textContent += ` No cell left to translate in ${editor.column.name} below.`; }
        }

        // The next cell the filter shows: with every key shown, the next one still to translate (on later pages too).
        async function nextCell(editor) {
          const wanted = cell => $('filter').value !== 'all' || ['missing', 'new', 'needs_review', 'outdated', 'draft'].includes(cell.dataset.status);
          let row = (findCell(editor.key, editor.language) || {}).parentElement;
          for (let pages = 0; pages < 50; pages++) {
            for (let next = row ? row.nextElementSibling : document.querySelector('#entries tbody tr'); next; next = next.nextElementSibling) {
              const candidate = Array.from(next.querySelectorAll('td.value')).find(cell => cell.dataset.language === editor.language);
              if (candidate && wanted(candidate)) return candidate;
            }
            if (!state.table || state.table.offset + state.table.limit >= state.table.total) return null;
            state.offset += state.limit;
            if (!await loadTable()) return null;
            row = null;
          }
          return null;
        }

        // A save refused: a conflict shows both texts and lets the user choose; a check's refusal says why.
        function refusal(status, body) {
          const editor = state.editor;
          if (status === 409) {
            const now = shape(body.current), source = shape(body.source);
            const sourceChanged = body.sourceVersion !== editor.sourceVersion;
            const texts = [];
            if (body.entryVersion !== editor.entryVersion) texts.push(`This text changed meanwhile. Now: ${now ? shownText(now) : '(removed)'}`);
            if (sourceChanged) texts.push(`Its source text changed meanwhile. Now: ${source ? shownText(source) : '(removed)'}`);
            say(texts.join('\n'), true,
              element('button', { type: 'button', text: 'Keep mine', onclick: () => {
                editor.entryVersion = body.entryVersion;
                editor.sourceVersion = body.sourceVersion;
                saveEditor(0);
              } }),
              element('button', { type: 'button', text: 'Take theirs', onclick: async () => {
                state.drafts.delete(editor.id);
                closeEditor(false);
                await loadTable();
                const cell = findCell(editor.key, editor.language);
                if (cell) openEditor(cell);
              } }));
          } else {
            const messages = (body.diagnostics || []).map(diagnostic => diagnostic.message);
            say(messages.length ? messages.join('\n') : (body.message || `not saved (${status})`), true);
          }
        }

        function say(text, alert, ...buttons) {
          const message = $('editor-message');
          message.replaceChildren(element('span', { class: alert ? 'notice' : '', text }), ...buttons);
        }

        // Undoes the last save: the key's earlier text written back (removed, if the save made it), expecting it unchanged since.
        async function undoLastSave() {
          const last = state.lastSave;
          if (!last) return;
          const base = { bundle: last.bundle, table: last.table, language: last.language, key: last.key };
          let outcome = null, version = last.entryVersion;
          if (last.created) {
            outcome = await api('/api/entry', { method: 'DELETE', body: JSON.stringify(Object.assign({ entryVersion: version }, base)) });
          } else {
            // The forms a save added (empty before) are not written back empty: a rule's form is never blank.
            const steps = last.steps.filter(step => step.kind !== 'form' || step.old !== '');
            const request = Object.assign({ entryVersion: version }, base);
            const forms = steps.filter(step => step.kind === 'form');
            if (forms.length) request.forms = forms.map(step => Object.assign({ category: step.category, value: step.old }, step.variable ? { variable: step.variable } : {}));
            const text = steps.find(step => step.kind !== 'form');
            if (text) request.value = text.old;
            outcome = await api('/api/entry', { method: 'PUT', body: JSON.stringify(request) });
          }
          if (outcome.status === 200) {
            state.lastSave = null;
            $('undo').disabled = true;
            $('save-status').textContent = `Undone: ${last.key} in ${last.language} is as it was.`;
            await loadTable();
            const cell = findCell(last.key, last.language);
            if (cell && !state.editor) activate(cell, true);
          } else {
            $('save-status').textContent = outcome.status === 409 ? `Not undone: ${last.key} changed again since.` : `Not undone: ${outcome.body.message || outcome.status}`;
          }
        }

        function editorKeys(event) {
          if (event.key === 'Escape') { event.preventDefault(); cancelEditor(); return; }
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); saveEditor('next'); return; }
          if (event.key === 'Enter' && !event.shiftKey && !event.altKey && event.target.tagName === 'TEXTAREA') { event.preventDefault(); saveEditor(0); return; }
          if (event.altKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) { event.preventDefault(); saveEditor(event.key === 'ArrowDown' ? 1 : -1); return; }
          if (event.ctrlKey && event.altKey && !event.shiftKey && /^Digit[1-9]$/.test(event.code)) {
            const use = $('editor-suggestions').querySelectorAll('button.use')[Number(event.code.slice(5)) - 1];
            if (use) { event.preventDefault(); use.click(); }
            return;
          }
          if (event.ctrlKey && event.shiftKey && /^Digit[1-9]$/.test(event.code)) {
            const chip = $('editor-chips').querySelectorAll('button.chip')[Number(event.code.slice(5)) - 1];
            if (chip) { event.preventDefault(); insertPlaceholder(chip.dataset.placeholder); }
          }
        }

        // ---- Live updates.

        function recordEdit(change) {
          const keys = Object.keys(change.added || {}).concat(Object.keys(change.changed || {}), change.removed || []);
          const list = $('recent');
          list.prepend(element('li', { text: `${new Date().toLocaleTimeString()} ${change.language} ${change.table}: ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? '…' : ''}` }));
          while (list.children.length > 20) list.lastChild.remove();
        }

        let overviewTimer = null;
        function refreshOverview() {
          clearTimeout(overviewTimer);
          overviewTimer = setTimeout(() => { if (!state.view) showOverview(); }, 100);
        }

        function follow() {
          const events = new EventSource('/api/events');
          const connection = $('connection');
          events.addEventListener('daemon', message => {
            const connected = JSON.parse(message.data).connected;
            connection.textContent = connected ? 'following lprojd' : 'lprojd is not answering';
            connection.classList.toggle('offline', !connected);
          });
          events.addEventListener('table-changed', message => {
            const change = JSON.parse(message.data);
            recordEdit(change);
            if (!state.view) { refreshOverview(); return; }
            if (change.bundle !== state.view.bundle || change.table !== state.view.table) return;
            const editor = state.editor;
            if (editor && !editor.saving) {
              // Only a change of the key being edited (or of its source) matters to the editor; other rows just update.
              const touched = (change.changed && editor.key in change.changed) || (change.added && editor.key in change.added) || (change.removed || []).includes(editor.key);
              const ours = touched && JSON.stringify((change.changed || change.added || {})[editor.key]) === JSON.stringify(editor.value);
              if (touched && !ours && (change.language === editor.language || change.language === state.table.development)) {
                say(change.language === editor.language ? 'This text changed on disk while you edit: saving will ask which to keep.'
                  : 'Its source text changed on disk while you edit: saving will ask which to keep.', true);
              }
            }
            loadTable();
          });
          events.addEventListener('table-invalid', message => {
            const change = JSON.parse(message.data);
            if (state.view && change.bundle === state.view.bundle) loadTable(); else if (!state.view) refreshOverview();
          });
          for (const name of ['diagnostics', 'misses']) {
            events.addEventListener(name, () => { if (state.view) loadTable(); else refreshOverview(); });
          }
          events.onerror = () => { connection.textContent = 'reconnecting…'; connection.classList.add('offline'); };
        }

        function isTyping(target) { return target.closest && target.closest('input, textarea, select, [contenteditable]'); }

        document.addEventListener('DOMContentLoaded', () => {
          $('home').addEventListener('click', event => { event.preventDefault(); state.view = null; remember(true); showOverview(); });
          for (const id of ['filter', 'languages']) $(id).addEventListener('change', () => { state.offset = 0; loadTable(); });
          let typing;
          // The search follows typing (a moment after the last key); Enter searches at once.
          $('search').addEventListener('input', () => {
            clearTimeout(typing);
            typing = setTimeout(() => { state.offset = 0; loadTable(); }, 150);
          });
          $('search').addEventListener('change', () => {
            clearTimeout(typing);
            if ($('search').value === state.searched) return;
            state.offset = 0;
            loadTable();
          });
          $('controls').addEventListener('submit', event => { event.preventDefault(); loadTable(); });
          $('pseudo').addEventListener('change', event => {
            const chosen = $('languages').value.split(',').filter(name => name && !/^(en-X[ADE]|ar-XB)$/.test(name));
            if (event.target.value) chosen.push(event.target.value);
            $('languages').value = chosen.join(',');
            loadTable();
          });
          $('previous').addEventListener('click', () => { state.offset = Math.max(0, state.offset - state.limit); loadTable(); });
          $('next').addEventListener('click', () => {
            if (state.table && state.offset + state.limit < state.table.total) { state.offset += state.limit; loadTable(); }
          });
          const body = document.querySelector('#entries tbody');
          body.addEventListener('keydown', tableKeys);
          body.addEventListener('click', event => { const cell = event.target.closest('td.value'); if (cell) openEditor(cell); });
          $('editor').addEventListener('keydown', editorKeys);
          $('editor-form').addEventListener('submit', event => { event.preventDefault(); saveEditor(0); });
          $('editor-next').addEventListener('click', () => saveEditor('next'));
          $('editor-copy').addEventListener('click', copySource);
          $('editor-cancel').addEventListener('click', cancelEditor);
          $('undo').addEventListener('click', undoLastSave);
          $('show-shortcuts').addEventListener('click', () => $('shortcuts').showModal());
          $('close-shortcuts').addEventListener('click', () => $('shortcuts').close());
          document.addEventListener('keydown', event => {
            if (isTyping(event.target) || $('shortcuts').open) return;
            if (event.key === '?') { event.preventDefault(); $('shortcuts').showModal(); }
            else if (event.key === 'z' && (event.ctrlKey || event.metaKey) && !state.editor && state.lastSave) { event.preventDefault(); undoLastSave(); }
          });
          window.addEventListener('hashchange', route);
          route();
          follow();
        });

        """#
}
