extension StudioAssets {
    /// The overview: each bundle, one row per language, its tables under it.
    static let scriptOverview = #"""
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

        """#
}
