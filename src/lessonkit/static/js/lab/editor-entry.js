// esbuild entry for the lab's CodeMirror 6 editor (bundled to site/static/<h>/js/editor.js).
// createEditor(textarea, {onRun, onCheck, onChange, onTabModeChange, describedBy, label, phrases}) replaces a textarea
// with an editor and returns {getCode, setCode, focus, view, setIndentMode, indentMode, destroy}. phrases: what
// CodeMirror says itself, in the page's language (EditorState.phrases; lab/editor.js words them from the catalog).
// Keyboard: Tab moves focus by default (no keyboard trap, WCAG 2.1.2); Ctrl+M (Shift+Alt+M on a Mac) or
// setIndentMode(true) makes Tab indent, and then Esc followed by Tab still leaves the editor (CodeMirror built-in).

import { EditorView, keymap, lineNumbers, highlightActiveLineGutter, highlightSpecialChars, drawSelection,
  highlightActiveLine } from "@codemirror/view";
import { EditorState, Compartment, Prec } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { indentOnInput, bracketMatching, syntaxHighlighting, HighlightStyle, indentUnit } from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { python } from "@codemirror/lang-python";
import { tags as t } from "@lezer/highlight";

// Colours come from CSS variables (static/css/lab.css), so light/dark follow prefers-color-scheme in CSS alone.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword],
    color: "var(--lab-hl-keyword)", fontWeight: "600" },
  { tag: [t.string, t.special(t.string)], color: "var(--lab-hl-string)" },
  { tag: [t.number, t.bool, t.null], color: "var(--lab-hl-number)" },
  { tag: [t.comment, t.lineComment, t.docString], color: "var(--lab-hl-comment)", fontStyle: "italic" },
  { tag: [t.function(t.variableName), t.function(t.definition(t.variableName)), t.definition(t.function(t.variableName))],
    color: "var(--lab-hl-function)" },
  { tag: [t.className, t.definition(t.className)], color: "var(--lab-hl-function)" },
  { tag: [t.standard(t.variableName), t.self], color: "var(--lab-hl-builtin)" },
  { tag: t.invalid, color: "var(--lab-hl-invalid)", textDecoration: "underline wavy" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--lab-editor-fg)", backgroundColor: "var(--lab-editor-bg)", fontSize: "var(--lab-code-size, 0.95rem)" },
  ".cm-content": { fontFamily: "var(--lab-mono)", caretColor: "var(--lab-editor-fg)", padding: "0.5rem 0" },
  ".cm-scroller": { fontFamily: "var(--lab-mono)", lineHeight: "1.5" },
  ".cm-gutters": { backgroundColor: "var(--lab-gutter-bg)", color: "var(--lab-gutter-fg)", borderRight: "1px solid var(--lab-border)" },
  ".cm-activeLine": { backgroundColor: "var(--lab-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--lab-active-line)", color: "var(--lab-editor-fg)" },
  "&.cm-focused": { outline: "3px solid var(--lab-focus)", outlineOffset: "2px" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--lab-editor-fg)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--lab-selection)" },
  ".cm-matchingBracket": { backgroundColor: "var(--lab-selection)", outline: "1px solid var(--lab-border)" },
});

export function createEditor(textarea, options = {}) {
  const { onRun, onCheck, onChange, onTabModeChange, describedBy, label, phrases = {} } = options;
  const dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  const darkMode = new Compartment();
  const tabMode = { indent: false };
  let view;

  const setIndentMode = (on) => {
    tabMode.indent = Boolean(on);
    // setTabFocusMode(true) = Tab moves focus; false = Tab reaches the indentWithTab binding.
    view.setTabFocusMode(!tabMode.indent);
    if (onTabModeChange) onTabModeChange(tabMode.indent);
  };

  // tabindex makes axe (scrollable-region-focusable) see the contenteditable as the scroller's focusable content.
  const attributes = { "aria-label": label, "aria-multiline": "true", tabindex: "0" };
  if (describedBy) attributes["aria-describedby"] = describedBy;

  view = new EditorView({
    parent: textarea.parentNode,
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        EditorState.phrases.of(phrases),
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        indentUnit.of("    "),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        syntaxHighlighting(highlight),
        python(),
        theme,
        darkMode.of(EditorView.darkTheme.of(Boolean(dark && dark.matches))),
        EditorView.contentAttributes.of(attributes),
        Prec.highest(
          keymap.of([
            { key: "Shift-Mod-Enter", run: () => { if (onCheck) onCheck(); return Boolean(onCheck); } },
            { key: "Mod-Enter", run: () => { if (onRun) onRun(); return true; } },
            { key: "Ctrl-m", mac: "Shift-Alt-m", run: () => { setIndentMode(!tabMode.indent); return true; } },
          ]),
        ),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && onChange) onChange(update.state.doc.toString(), update);
        }),
      ],
    }),
  });
  textarea.parentNode.insertBefore(view.dom, textarea);
  textarea.hidden = true;
  view.setTabFocusMode(true); // learners tab through the page by default

  if (dark) {
    const follow = () => view.dispatch({ effects: darkMode.reconfigure(EditorView.darkTheme.of(dark.matches)) });
    if (dark.addEventListener) dark.addEventListener("change", follow);
  }

  return {
    view,
    get indentMode() {
      return tabMode.indent;
    },
    setIndentMode,
    getCode: () => view.state.doc.toString(),
    setCode(code) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
    },
    focus: () => view.focus(),
    destroy() {
      view.destroy();
      textarea.hidden = false;
    },
  };
}
