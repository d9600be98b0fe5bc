// What an {explain} block keeps of a learner's progress, for the course index and the progress file
// (course/progress.js): the learner's draft, under the block's version; a draft of spaces is no draft.
// The page's words (page/i18n.js: main.js's one copy, on globalThis.lessonkitWords), read, not imported.
const num = (value, digits) => globalThis.lessonkitWords.num(value, digits);
const t = (key, params) => globalThis.lessonkitWords.t(key, params);
const tn = (key, n, params) => globalThis.lessonkitWords.tn(key, n, params);

export const progress = {
  /** The entries an explain block saves in its lesson: its draft. */
  entries: (block, saved) => [{ part: block.version, shape: saved.draft, count: "drafts" }],
  counts: {
    drafts: {
      order: 20,
      add: (sum, draft) => {
        sum.total += 1;
        sum.done += draft && draft.text.trim() ? 1 : 0;
      },
      words: ({ done, total }) => {
        if (!done) return "";
        return total === 1 ? t("progress.explanation") : tn("progress.explanations", total, { done: num(done) });
      },
    },
  },
};
