// What a quiz keeps of one question: {answer, first, tries}: the option the learner's last Check committed, the one
// their first Check committed, and how many different options they committed (1 when the first one stayed). The
// options are the page's radio values ("1", "2", …). A page of an older version kept only the bare option value: it
// reads as its own first attempt, with one try (the only attempt on record).

/** The saved value of one question as {answer, first, tries} (an older page's bare option value included). */
export function answerOf(value) {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? { answer: value, first: value, tries: 1 } : value;
}

/** The question's value after the learner commits `option` (null: nothing committed before). */
export function committed(before, option) {
  const was = answerOf(before);
  if (!was) return { answer: option, first: option, tries: 1 };
  if (was.answer === option) return was;
  return { answer: option, first: was.first, tries: was.tries + 1 };
}
