// The store and the use-cases are async: a call whose promise is neither awaited, returned nor handled would let an
// error pass unseen, or a write be answered before it is done. This walks src/ with the TypeScript checker and names
// every statement that drops a promise (`void p` says on purpose; `.then`/`.catch` handle it).
import ts from 'typescript';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();

function floatingPromises(): string[] {
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, root);
  const program = ts.createProgram(config.fileNames.filter((f) => f.includes('/src/')), config.options);
  const checker = program.getTypeChecker();
  const isPromise = (type: ts.Type): boolean => (type.isUnion() ? type.types.some(isPromise) : type.getSymbol()?.getName() === 'Promise');
  const handled = (call: ts.Expression) =>
    ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) && ['then', 'catch', 'finally'].includes(call.expression.name.text);
  const found: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(join(root, 'src'))) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isExpressionStatement(node) && ts.isCallExpression(node.expression) && !handled(node.expression)) {
        if (isPromise(checker.getTypeAtLocation(node.expression))) {
          const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
          found.push(`${file.fileName.slice(root.length + 1)}:${line + 1}: ${node.getText(file).slice(0, 80)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

describe('promises in src/', () => {
  it('none is dropped: each is awaited, returned, handled or voided on purpose', () => {
    expect(floatingPromises()).toEqual([]);
  }, 60_000);
});
