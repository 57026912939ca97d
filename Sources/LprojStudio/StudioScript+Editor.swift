extension StudioAssets {
    /// The editor pane: opening it on a cell, suggestions, the fields (plural
    /// forms, the format), placeholders, copy source, drafts, and the key's
    /// details (checks, other languages, history).
    static let scriptEditor = #"""
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

        // The field placeholders go into: the one last focused, else the first.
        function placeholderField() { return state.lastField && state.lastField.isConnected ? state.lastField : fieldsOf()[0]; }

        function markPlaceholders() {
          const area = placeholderField();
          const text = area ? area.value : '';
          for (const chip of $('editor-chips').querySelectorAll('button.chip')) {
            const used = text.includes(chip.dataset.placeholder);
            chip.classList.toggle('used', used);
            chip.setAttribute('aria-label', `Insert ${chip.dataset.placeholder}` + (used ? '' : ' (not in the translation yet)'));
          }
        }

        function insertPlaceholder(placeholder) {
          const area = placeholderField();
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

        """#
}
