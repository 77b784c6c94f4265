/**
 * Generated pages for the differential test against the browser: random sequences of small fragments that
 * each exercise a tokenizer or tree-building rule (comments, raw text, script escapes, templates, SVG and
 * MathML with their integration points, framesets, attribute syntax, entities, charsets, base URLs …).
 * Deterministic: a fixed seed gives the same pages on every run. ASCII only, so the page encoding matters
 * for declarations but never needs Chromium's content-based guess for undeclared non-ASCII bytes.
 */

const FRAGMENTS = [
  '<title>Title A</title>', '<TITLE >Upper &amp;amp; title</TITLE>', '<title></title>', '<title>  </title>', '<title>x<!-- c -->y</title>',
  '<title>&#x41;&#0;&#128;&copy&notit;&amp</title>', '<svg><title>svg title</title></svg>', '<math><mi><title>mi title</title></mi></math>',
  '<svg><foreignObject><title>fo title</title></foreignObject></svg>', '<svg><desc><meta name="description" content="desc in svg desc"></desc></svg>',
  '<template><title>tpl</title><meta name="description" content="tpl desc"></template>', '<template><template></template><meta property="og:title" content="tpl2"></template>',
  '<meta name="description" content="Desc one">', '<meta NAME="DESCRIPTION" content="Upper desc">', '<meta name="description" content="">', '<meta name=description content=unquoted"q>',
  '<meta property="og:title" content="OG &lt;b&gt; title">', '<meta name="og:title" content="name og title">', '<meta property="OG:Image" content="//cdn.example.net/i.png">',
  '<meta property="og:url" content=" /rel/path?x=1#f ">', '<meta property="og:image" content="http://[bad">', '<meta property="og:description" content="a\n\t b  c">',
  '<meta/content="slash desc"/name="description">', '<meta =name="description" content="eq">', '<meta name="description" name="og:title" content="dup names">',
  '<meta content="first" content="second" name="description">', '<base href="/sub/dir/">', '<base target="_blank">', '<base href="https://other.example.org/b/">',
  '<base href="">', '<link rel="icon" href="fav.png">', '<link rel="SHORTCUT ICON" href="/short.ico">', '<link rel="apple-touch-icon" href="apple.png">',
  '<link rel="canonical" href="canon">', '<link rel="canonical" href="">', '<link rel="\ticon\n" href=" tabbed.ico ">', '<link rel=canonical href=https://x.example/c>',
  '<!-- <meta name="description" content="in comment"> -->', '<!-->', '<!--->', '<!-- -- --!><meta property="og:title" content="after bang comment">',
  '<!x <meta name="description" content="bogus">', '<? <title>pi</title> ?>', '</ <title>x</title>', '<script><!-- <script> </script> <meta name="description" content="double escaped"> --></script>',
  '<script>var s = "<meta name=\'description\' content=\'in script\'>";</script>', '<script>a<!--b</script><title>after script</title>', '<style><title>in style</title></style>',
  '<textarea><meta name="description" content="in textarea"></textarea>', '<xmp><title>xmp</title></xmp>', '<iframe><title>iframe</title></iframe>', '<noembed><title>noembed</title></noembed>',
  '<noframes><meta name="description" content="noframes"></noframes>', '<noscript><meta name="description" content="noscript desc"></noscript>', '<plaintext><title>pt</title>',
  '<svg><font color="red"><meta name="description" content="font breakout"></font></svg>', '<svg><font><title>font nobreak</title></font></svg>', '<svg></p><title>after p</title></svg>',
  '<svg><![CDATA[<meta name="description" content="cdata">]]></svg>', '<![CDATA[<title>html cdata</title>]]>', '<math><annotation-xml encoding="text/html"><title>ax</title></annotation-xml></math>',
  '<math><annotation-xml encoding="TEXT/HTML"><meta name="description" content="ax upper"></annotation-xml></math>', '<math><annotation-xml><title>ax no enc</title></annotation-xml></math>',
  '<table><meta name="description" content="in table"><tr><td><title>td title</title></td></tr></table>', '<select><meta name="description" content="in select"><title>sel</title></select>',
  '<frameset><meta name="description" content="frameset"></frameset>', '<p>text &amp; more</p>', '<div title="<meta name=description content=attr>">x</div>', "<a href='<title>' title=\"'\">y</a>",
  '<body><p>body start', '</body></html><meta name="description" content="after html">', '<head><meta charset="utf-8"></head>', '<meta http-equiv="content-type" content="text/html; charset=iso-8859-5">',
  '<meta charset="shift_jis">', '<title>caf&eacute; &ndash; na&iuml;ve</title>', '<meta name="description" content="&#xe9;t&#xe9; &#x6771;&#x4eac;">', '&#0;', '&#xFFFD;', '<svg>&#0;</svg>', '\u0000<title>nul\u0000 title</title>',
  '<title>cr\r\nlf</title>', '<image src=x>', '<svg><svg><title>nested</title></svg><title>outer</title></svg>', '<math><mtext><meta name="description" content="mtext"></mtext></math>',
  '<svg><desc><svg><title>inner svg in desc</title></svg></desc></svg>', '<template><svg><title>t</title></svg></template>', '</template><title>stray end</title>', '<textarea>x</textarea >',
  '<script>x</script foo="a>b">', '<title>a</title x="</title>">b', '<meta name="description" content="x" / >', '<link rel="icon" href="data:image/png;base64,AAA">',
  '<frameset>', '<frameset cols="50%"><frame src="a.html"><noframes><meta name="description" content="nf"></noframes></frameset>', '<body>', '</body>', '</html>', '</br>',
  '<input type="hidden">', '<input type=HIDDEN>', '<input>', '<img src=x>', 'plain text', ' &#32;\n', '&Tab;&NewLine;', '<br>', '<p>', '<span>s</span>', '<head>', '</head>',
  '<noscript><frameset></noscript>', '<svg><frameset></svg>', '<select><frameset></select>', '<table><frameset></table>', '<object></object>', '<a>', '<b></b>', '  ',
  '<meta name="description" content="late desc">', '<title>late title</title>', '<link rel=icon href=late.ico>', '<base href="/late/">', '<template><frameset></template>',
  '<math><mi>t</mi></math>', '<svg> </svg>', '<svg>x</svg>', '<hr>', '<li>', '<button>', '<embed>', '<wbr>', '<keygen>', '<listing>', '<marquee>', '<applet>',
  '<meta charset="utf-8">', '<meta charset="windows-1251">', '<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">', '<meta charset="euc-jp">',
  '<meta charset=utf-16>', '<meta charset="x-user-defined">', '<meta charset="bogus">', '<meta content="text/html;charset=koi8-r" http-equiv=content-type>',
  '<link rel="icon canonical" href="both.png">', '<meta property="og:image" content="javascript:alert(1)">', '<base href="//proto.example.com/p/">', '<base href="rel/">',
];

/** A small linear congruential generator: the same pages for the same seed. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** `count` pages of 3–14 fragments each, joined with or without newlines. */
export function generatedPages(seed: number, count: number): Array<{ name: string; url: string; bytes: Buffer }> {
  const random = generator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const parts: string[] = [];
    if (random() < 0.5) parts.push(pick(['<!doctype html>', '<!DOCTYPE html><html lang=en>', '<html><head>', '']));
    const n = 3 + Math.floor(random() * 12);
    for (let k = 0; k < n; k++) parts.push(pick(FRAGMENTS));
    const html = parts.join(random() < 0.5 ? '\n' : '');
    return { name: `generated ${seed}/${i}: ${JSON.stringify(html).slice(0, 400)}`, url: 'https://www.example.com/a/b/page.html?q=1', bytes: Buffer.from(html, 'latin1') };
  });
}
