// What the site saves: one validator per stored shape, built from store.js's `is`. The page module that writes an
// entry reads it back with its shape here, and the progress file's import checks every entry against the same
// validator before it writes anything (progress.js), so a shape is described once.
//
// A module loaded after main.js (the lab, the course index) receives these with the page's store (`page.store.saved`)
// instead of importing this file, which would put it in a chunk both bundles load.
import { is } from "./store.js";

/** The version of a lab's saved-code entry; an entry of another version is not read. */
export const CODE_SCHEMA = 1;

const savedAt = is.optional(is.nullable(is.string));
const earlier = is.shape({ base: is.string, code: is.string, savedAt });

/**
 * The validator of one quiz question's saved value, {answer, first, tries} (blocks/quiz/answer.js makes and reads
 * it), or an older page's bare option value; `allowed(option)` says an option exists.
 */
function answerShape(allowed) {
  const option = (v) => is.string(v) && allowed(v);
  const committed = is.shape({ answer: option, first: option, tries: (v) => is.count(v) && v >= 1 });
  return (v) => option(v) || committed(v);
}

export const saved = {
  CODE_SCHEMA,
  /**
   * A quiz's answers, {question number: {answer, first, tries}} (answerShape above; an older page's bare option
   * value reads too). `options` maps each question number ("1", "2", …) to the
   * set of its options' values, or to null where only the questions are known (the course manifest lists no
   * options: the quiz's page checks them again when it loads the answers).
   */
  quiz: (options) => is.record((n) => options.has(n), (value, n) => {
    const allowed = options.get(n);
    return answerShape((option) => allowed === null || allowed.has(option))(value);
  }),
  /** The question numbers of a quiz of `count` questions, none of their options known. */
  questions: (count) => new Map(Array.from({ length: count }, (_, i) => [String(i + 1), null])),
  /** An explain block's draft. */
  draft: is.shape({ text: is.string, savedAt: is.optional(is.number) }),
  /**
   * A lab's edited code: {schema, base, code, savedAt, earlier?}. `base` is the hash of the lesson's code the edit
   * started from; `earlier` an edit kept from before the lesson's code changed.
   */
  code: is.shape({ schema: is.literal(CODE_SCHEMA), base: is.string, code: is.string, savedAt, earlier: is.optional(earlier) }),
  /** An exercise's state: passed, failed Check runs, hints shown, solution shown. */
  exercise: is.shape({ passed: is.boolean, attempts: is.count, hints: is.count, solution: is.boolean }),
  /** An exercise's edited code: {base: the hash of the starter it started from, code}. */
  exerciseCode: is.shape({ base: is.string, code: is.string }),
  /**
   * The lesson a learner opened last (the course index's Continue link) and its course's id: the key is the origin's,
   * shared by every course on it. An entry without `course` was saved by an older page.
   */
  last: is.shape({ lesson: is.string, course: is.optional(is.string), at: is.string }),
};
