// The document the editor opens with: short enough to read at a glance, rich enough to show
// what a theme does with headings, emphasis, lists, tasks, quotes, code and tables.
export const sampleMarkdown = `# 写下来，就是一张好卡片 ✨

Turn **Markdown** into cards for RedNote, Instagram and WeChat. Type here and watch the card change.

## Why people love it

1. Write in plain text, no design tool
2. Pick a theme and a *mode*
3. Get images at any size

- [x] 中文、English、emoji 🎉
- [ ] Share it

> Simple is beautiful. 简单即是美。

\`\`\`js
const card = await cardwright.generate({ theme: 'plain-notes' });
\`\`\`

| Size | Ratio |
| --- | --- |
| 440 × 586 | 3:4 |
| 440 × 782 | 9:16 |
`;
