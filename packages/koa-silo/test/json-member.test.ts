/**
 * file_data's text as the client sent it: the member found in the raw body (the last one when it
 * repeats, as JSON.parse takes it; escaped member names too), without insignificant whitespace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBody, withoutSpannedText, withSpannedText } from '../src/work/body-check.js';
import { compactJson, memberSpan } from '../src/work/json-member.js';

/** The compact text of a member, as checkBody takes file_data's. */
function memberText(text: string, name: string): string | undefined {
  const span = memberSpan(text, name);
  return span && compactJson(text, span[0], span[1]);
}

describe('memberText', () => {
  it('finds a member whatever comes before and after it, and keeps its numbers as written', () => {
    const body = ' { "file_name" : "a,b}" , "file_data" : [ {"n": 1.0}, {"big": 12345678901234567890, "e": 1E+400, "z": -0} ] ,"x":{"y":[1,2]} } ';
    expect(memberText(body, 'file_data')).toBe('[{"n":1.0},{"big":12345678901234567890,"e":1E+400,"z":-0}]');
    expect(memberText(body, 'file_name')).toBe('"a,b}"');
    expect(memberText(body, 'missing')).toBeUndefined();
    expect(memberText('[1]', 'file_data')).toBeUndefined();
  });

  it('takes the last of repeated members, as JSON.parse does, and reads escaped names', () => {
    expect(memberText('{"file_data":{"a":1},"file_data":{"b":2}}', 'file_data')).toBe('{"b":2}');
    expect(memberText('{"file\\u005fdata":{"c":3}}', 'file_data')).toBe('{"c":3}');
  });

  it('keeps whitespace and escapes inside strings', () => {
    const body = '{"file_data": {"s": "a \\" b\\\\", "t": "\\u00e9 \\n x"}}';
    expect(memberText(body, 'file_data')).toBe('{"s":"a \\" b\\\\","t":"\\u00e9 \\n x"}');
  });

  it('agrees with JSON.parse on every generated body', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.boolean(), (data, other, spaced) => {
        const body = spaced
          ? JSON.stringify({ file_name: other, file_data: data, other }, null, 2)
          : JSON.stringify({ other, file_data: data });
        const text = memberText(body, 'file_data');
        expect(text).toBe(JSON.stringify(data));
      }),
    );
  });
});

describe('compactJson', () => {
  it('removes whitespace outside strings only', () => {
    expect(compactJson(' [ 1 ,\t{ "a b" : "c\\td" }\n] ')).toBe('[1,{"a b":"c\\td"}]');
    expect(compactJson('{"a":1}')).toBe('{"a":1}');
  });
});

describe('a checked body sent back from a worker', () => {
  it("names where file_data lies in a compact body instead of copying it, and the main thread's slice is the same text", () => {
    const compact = '{"file_name":"n","file_data":[{"n":1.0},{"s":"a b"}]}';
    const checked = checkBody('create', compact, 1000, 1000);
    expect(checked.dataSpan).toEqual([compact.indexOf('['), compact.length - 1]);
    const sent = withoutSpannedText(checked);
    expect(sent.dataText).toBeUndefined();
    expect(withSpannedText(sent, compact).dataText).toBe('[{"n":1.0},{"s":"a b"}]');
    // With whitespace to take out, the text is not the body's slice: it goes back as text.
    const spaced = '{"file_name":"n", "file_data": [ {"n": 1.0} ]}';
    const other = withoutSpannedText(checkBody('create', spaced, 1000, 1000));
    expect(other.dataSpan).toBeUndefined();
    expect(withSpannedText(other, spaced).dataText).toBe('[{"n":1.0}]');
  });
});
