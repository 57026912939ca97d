extension StudioAssets {
    /// The page: the overview, a table with its editor pane beside it, and
    /// the keyboard shortcuts (`?`). Landmarks and labels for every control.
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
          <p class="title"><a href="#/" id="home">lprojd studio</a></p>
          <span id="connection" class="status" role="status">connecting…</span>
          <button id="show-shortcuts" type="button" aria-keyshortcuts="?">Keyboard shortcuts (?)</button>
        </header>
        <main>
          <section id="overview" aria-labelledby="overview-title">
            <h1 id="overview-title">Bundles</h1>
            <div id="bundles"></div>
            <h2>Last edits</h2>
            <ol id="recent" aria-live="polite"></ol>
          </section>
          <section id="table-view" hidden aria-labelledby="table-title">
            <h1 id="table-title"></h1>
            <div id="invalid" role="alert" hidden></div>
            <form id="controls">
              <label>Languages <input id="languages" placeholder="fr,de" size="20"></label>
              <label>Show <select id="filter">
                <option value="all">all keys</option>
                <option value="missing">missing</option>
                <option value="diagnostics">with diagnostics</option>
                <option value="missed">missed at runtime</option>
                <option value="new">new</option>
                <option value="needs_review">needs review</option>
                <option value="stale">stale or needs review</option>
                <option value="unchanged">same as source</option>
                <option value="outdated">outdated (source changed since, in git)</option>
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
            <div id="new-languages" hidden></div>
            <p class="toolbar"><span id="table-status" role="status"></span>
              <button id="undo" type="button" disabled aria-keyshortcuts="Control+Z">Undo last save</button>
              <span id="save-status" role="status"></span></p>
            <details id="unknown" hidden>
              <summary id="unknown-summary"></summary>
              <p class="hint">Keys the apps looked up that no language of this table has: new strings, to add in the source language first.</p>
              <table id="unknown-keys"><thead><tr><th scope="col">Key</th><th scope="col">Missed</th><th scope="col">Apps</th>
                <th scope="col">Languages asked</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Add</th></tr></thead>
                <tbody></tbody></table>
            </details>
            <p id="grid-help" class="visually-hidden">Arrow keys move between translations; Enter or F2 edits one; ? lists every shortcut.</p>
            <div id="workspace">
              <div class="grid">
                <table id="entries" aria-describedby="grid-help"><thead></thead><tbody></tbody></table>
                <nav id="pages" aria-label="Pages"><button id="previous" type="button">Previous</button> <span id="page"></span>
                  <button id="next" type="button">Next</button></nav>
              </div>
              <aside id="editor" hidden aria-labelledby="editor-title">
                <h2 id="editor-title" tabindex="-1"></h2>
                <p id="editor-language"></p>
                <div id="editor-review"></div>
                <h3>Source</h3>
                <div id="editor-source" class="source-text"></div>
                <p id="editor-comment" class="comment"></p>
                <form id="editor-form">
                  <div id="editor-fields"></div>
                  <div id="editor-chips-group" role="group" aria-labelledby="editor-chips-label">
                    <span id="editor-chips-label">Placeholders</span> <span id="editor-chips"></span>
                  </div>
                  <div id="editor-suggestions" aria-live="polite"></div>
                  <p id="editor-keys" class="hint">Enter saves, Shift+Enter a new line, Ctrl+Enter saves and opens the next text to translate, Escape cancels.</p>
                  <div class="actions">
                    <button id="editor-save" type="submit">Save</button>
                    <button id="editor-next" type="button" aria-keyshortcuts="Control+Enter">Save and next</button>
                    <button id="editor-copy" type="button">Copy source</button>
                    <button id="editor-cancel" type="button" aria-keyshortcuts="Escape">Cancel</button>
                  </div>
                  <div id="editor-message" role="alert"></div>
                </form>
                <div id="editor-details"></div>
              </aside>
            </div>
          </section>
        </main>
        <dialog id="shortcuts" aria-labelledby="shortcuts-title">
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <dl>
            <dt>↑ ↓ ← →</dt><dd>move between translations</dd>
            <dt>Home, End</dt><dd>first, last language of the row</dd>
            <dt>Enter or F2</dt><dd>edit the translation</dd>
            <dt>Enter</dt><dd>save (in the editor)</dd>
            <dt>Shift+Enter</dt><dd>a new line</dd>
            <dt>Ctrl+Enter</dt><dd>save and edit the next text to translate (with a filter: the next key it shows)</dd>
            <dt>Alt+↑, Alt+↓</dt><dd>save and edit the key above, below</dd>
            <dt>Tab</dt><dd>the next plural form</dd>
            <dt>Ctrl+Shift+1…9</dt><dd>insert the source's first…ninth placeholder</dd>
            <dt>Ctrl+Alt+1…9</dt><dd>take the first…ninth suggestion</dd>
            <dt>Escape</dt><dd>cancel the edit</dd>
            <dt>Ctrl+Z</dt><dd>undo the last save (outside the editor)</dd>
            <dt>?</dt><dd>this list</dd>
          </dl>
          <button id="close-shortcuts" type="button">Close</button>
        </dialog>
        </body>
        </html>

        """

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; }
        header { display: flex; flex-wrap: wrap; gap: 1em; align-items: baseline; padding: .5em 1em; background: #f2f2f7; border-bottom: 1px solid #ddd; }
        header .title { font-size: 1.2em; font-weight: bold; margin: 0; } header a { color: inherit; text-decoration: none; }
        #show-shortcuts { margin-inline-start: auto; }
        main { padding: 0 1em 2em; }
        h1 { font-size: 1.3em; }
        button, input, select { min-height: 24px; min-width: 24px; box-sizing: border-box; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .status.offline { color: #b00020; }
        .bundle { margin: 1em 0; } .bundle h3 { font-size: 1em; font-family: ui-monospace, monospace; }
        ul.languages { list-style: none; padding: 0; margin: 0; }
        li.language { border-top: 1px solid #ddd; padding: .4em 0; }
        li.language h4 { margin: 0; font-size: 1.05em; } li.language code { color: #555; font-weight: normal; }
        li.language .summary { margin: .1em 0 .3em; color: #333; }
        li.language summary { cursor: pointer; min-height: 24px; color: #0a4fa8; }
        ul.tables { list-style: none; padding-inline-start: 1.5em; margin: 0; }
        li.table-row { display: grid; grid-template-columns: minmax(8em, 14em) 10em 1fr; gap: .2em 1em; align-items: center; min-height: 24px; }
        li.table-row a, header a { display: inline-block; min-height: 24px; line-height: 24px; } li.table-row a { color: #0a4fa8; }
        progress { width: 10em; }
        .badge { display: inline-block; font-size: .78em; border-radius: .6em; padding: 0 .5em; margin-inline-end: .4em; background: #eee; color: #333; }
        .badge.missing, .badge.new { background: #fde7c7; color: #6b3d00; } .badge.needs_review, .badge.stale { background: #fde2e4; color: #8a0016; }
        .badge.unchanged { background: #e6e6fa; color: #2f2f6b; } .badge.outdated { background: #fdf3c7; color: #5c4400; } .badge.draft { background: #dff3e3; color: #14532d; } .badge.source { background: #e8f0fe; color: #0a3d8f; }
        #controls { display: flex; flex-wrap: wrap; gap: .4em 1em; } #controls label { display: inline-flex; gap: .3em; align-items: center; }
        #unknown { margin: .5em 0; } #unknown summary { cursor: pointer; min-height: 24px; } #unknown-keys td { white-space: normal; }
        #unknown-keys form { display: flex; flex-wrap: wrap; gap: .3em; align-items: center; }
        .toolbar { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; }
        #new-languages { border: 1px solid #b7cdf5; background: #f3f7fe; padding: .3em .8em; margin: .5em 0; } #new-languages p { margin: .3em 0; }
        #invalid { border: 2px solid #b00020; background: #fdecee; padding: .3em .8em; margin: .5em 0; }
        #invalid p { margin: .2em 0; } #invalid p:first-child { font-family: ui-monospace, monospace; }
        #workspace { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1em; align-items: start; }
        #workspace.editing { grid-template-columns: minmax(0, 1fr) minmax(18em, 28em); }
        table { border-collapse: collapse; width: 100%; table-layout: fixed; }
        th, td { border: 1px solid #ddd; padding: .3em .5em; vertical-align: top; text-align: start; overflow-wrap: anywhere; white-space: pre-wrap; }
        th.key { font-family: ui-monospace, monospace; font-weight: normal; width: 14em; } thead th.key { font-family: inherit; font-weight: bold; }
        th.comment, td.comment { color: #555; font-size: .9em; width: 12em; }
        td.value { cursor: text; } td.value.readonly { cursor: default; background: #fafafa; }
        td.value.missing { background: #fff4e5; } td.value.saving { opacity: .6; }
        td.value:focus { outline: 3px solid #0a64d8; outline-offset: -3px; } td.value.editing { box-shadow: inset 4px 0 0 #0a64d8; }
        .form { display: block; } .form .category { color: #555; font-size: .85em; margin-inline-end: .3em; }
        .chip { display: inline-block; font-family: ui-monospace, monospace; font-size: .9em; background: #e8f0fe; color: #0a3d8f; border: 1px solid #b7cdf5; border-radius: .4em; padding: 0 .25em; white-space: nowrap; }
        button.chip { cursor: pointer; } button.chip:not(.used) { background: #fff; border-style: dashed; }
        .diagnostic { display: block; font-size: .85em; color: #8a4b00; } .diagnostic.error { color: #b00020; }
        .missed { font-size: .8em; background: #e8f0fe; border-radius: .5em; padding: 0 .4em; }
        .notice { display: block; color: #b00020; white-space: pre-wrap; }
        #editor { position: sticky; top: .5em; max-height: calc(100vh - 1em); overflow: auto; border: 1px solid #ccc; border-radius: .4em; padding: 0 .8em .8em; background: #fcfcfd; }
        #editor h2 { font-family: ui-monospace, monospace; font-size: 1.05em; overflow-wrap: anywhere; } #editor h3, #editor h4 { font-size: .95em; margin: .8em 0 .2em; }
        .source-text { white-space: pre-wrap; background: #f5f5f7; padding: .3em .5em; border-radius: .3em; }
        #editor .comment { color: #444; font-style: italic; }
        .field { margin: .5em 0; } .field label { display: block; font-weight: 600; }
        textarea { width: 100%; min-height: 2.6em; font: inherit; box-sizing: border-box; resize: vertical; overflow-y: auto; }
        .preview { font-size: .85em; color: #444; white-space: pre-wrap; min-height: 1em; }
        fieldset.forms { border: 1px solid #ddd; margin: .4em 0; } fieldset.forms legend { font-weight: 600; }
        .actions { display: flex; flex-wrap: wrap; gap: .4em; margin: .5em 0; }
        .hint { font-size: .85em; color: #555; }
        dl.others dt { font-weight: 600; margin-top: .3em; } dl.others dd { margin-inline-start: 1em; white-space: pre-wrap; }
        ol.history { padding-inline-start: 1.2em; } ol.history .who { color: #444; font-size: .85em; } ol.history .what { display: block; white-space: pre-wrap; }
        ol.suggestions { padding-inline-start: 1.4em; margin: .2em 0; } ol.suggestions li { margin: .3em 0; }
        ol.suggestions .score, ol.suggestions .from { font-size: .8em; color: #555; margin-inline-start: .4em; }
        ol.suggestions .theirs { display: block; font-size: .85em; color: #444; } ol.suggestions del { color: #8a0016; } ol.suggestions ins { color: #14532d; }
        dialog dl { display: grid; grid-template-columns: auto 1fr; gap: .2em 1em; } dialog dt { font-family: ui-monospace, monospace; }
        @media (max-width: 700px) {
          main { padding: 0 .5em 2em; }
          #workspace.editing { grid-template-columns: minmax(0, 1fr); }
          #editor { position: static; max-height: none; }
          #entries thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
          #entries, #entries tbody, #entries tr, #entries th, #entries td { display: block; width: auto; }
          #entries tr { border: 1px solid #ccc; border-radius: .3em; margin: 0 0 .6em; }
          #entries th, #entries td { border: 0; border-top: 1px solid #eee; }
          #entries td.comment.empty { display: none; }
          #entries [data-label]::before { content: attr(data-label); display: block; font-size: .78em; color: #555; font-family: system-ui, sans-serif; }
          li.table-row { grid-template-columns: 1fr; }
        }

        """
}
