extension StudioAssets {
    /// Live updates from the daemon's events, and the page's start.
    static let scriptLive = #"""
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
