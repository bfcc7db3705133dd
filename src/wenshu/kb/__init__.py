"""The document knowledge base: files in (PDF, DOCX, PPTX, XLSX, HTML, Markdown, text), parsed to
Markdown, chunked by structure and tokens, embedded with the schema-recall embedder into the vector
index, searched by BM25 + dense fused, summarised in the background. docs/kb.md has the whole story."""
