extension StudioAssets {
    /// Saving from the editor: one request per key expecting what the page
    /// saw, moving on after it, conflicts and refusals, undo, the editor's keys.
    static let scriptSaving = #"""
        // Saves the changed fields in one request (a rule's forms with its format), expecting the key and its source as the
        // page saw them; then closes the editor on the cell (move 0), or opens the next cell (move 'next'), or a neighbour (±1).
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

        """#
}
