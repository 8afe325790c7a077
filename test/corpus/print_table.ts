// Prints the corpus table in markdown — model | family | TF version | ops new to tfgate (used
// by no fixture SavedModel) | result — from the outcomes recorded in
// test/runtimes/corpus.test.ts (which the test enforces). Run: node dist/test/corpus/print_table.js
process.argv.push('--table');
await import('../runtimes/corpus.test.js');
