// The documents of the sustained preview attacks that the fairness test (test/hostile-render.test.ts)
// and `npm run bench:hostile` send again and again from one address: each keeps some part of the
// service busy for seconds while costing little to send.

/** An SVG whose filters take the drawing process long to draw. */
const slowFilterSvg = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><filter id="f"><feTurbulence baseFrequency="0.9" numOctaves="10"/><feGaussianBlur stdDeviation="40"/></filter><rect width="600" height="600" filter="url(#f)"/></svg>').toString('base64')}`;

/** `count` slow-filter SVGs (50 are 18.6 KB): the drawing processes. */
export const slowFilterSvgsDocument = (count: number) => Array.from({ length: count }, (_, i) => `![${i}](${slowFilterSvg})`).join('\n');

/** A fence of 24 KB that keeps the highlighter busy: a Markdown worker. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the fence's TypeScript holds a template literal
export const heavyFenceDocument = `\`\`\`ts\n${'const value = { a: [1, "two", `three ${4}`], b: /re+g/gi } as const; // note\n'.repeat(300)}\`\`\``;

/** Nine diagrams of 499 edges, just under the limit: the diagram page. */
export const bigDiagramsDocument = Array.from({ length: 9 }, () => `\`\`\`mermaid\ngraph TD\n${Array.from({ length: 499 }, (_, i) => `n${i} --> n${i + 1}`).join('\n')}\n\`\`\``).join('\n\n');

/** 50 images from a slow host (`origin`), each a different address so no cache answers them: the image fetches. */
export const slowImagesDocument = (origin: string, path: (i: number) => string) => Array.from({ length: 50 }, (_, i) => `![${i}](${origin}${path(i)})`).join('\n');
