extension StudioAssets {
    /// A table: loading it (the newest answer wins), the keys apps missed,
    /// new languages confirmed, the banner of a broken file, the rows and
    /// their badges, and moving between cells from the keyboard.
    static let scriptTable = #"""
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

        """#
}
