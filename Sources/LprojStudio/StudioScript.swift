extension StudioAssets {
    /// The page's script, served as one file (`/studio.js`): its parts in
    /// order, each one concern. Every value goes on the page with
    /// `textContent` or as a text node: a translation is text, never markup.
    static let script = [scriptBasics, scriptOverview, scriptTable, scriptEditor, scriptSaving, scriptLive].joined()

    /// The basics every other part uses: the page's state, building elements
    /// (values always as text), the API, placeholders as chips, an entry's
    /// shape, and the addresses of the views.
    static let scriptBasics = #"""
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

        """#
}
