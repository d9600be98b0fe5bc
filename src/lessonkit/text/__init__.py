"""An author's text made HTML: markdown with its inline pass (markup, inlinepass), LaTeX as MathML (mathml, checked by
mathcheck), figures the labs computed (figures), shaded cells (heat), and a lesson's prose around its blocks (prose)."""
