/**
 * Small hand-written pages, one per extraction rule, with the fields a browser's DOM gives for them.
 * extract.test.ts checks the extractor against `expected`; oracle-rules.test.ts checks that headless
 * Chromium agrees with the extractor on every one of them (so the expectations are the browser's).
 */
import type { Metadata } from '../../src/metadata/types.js';

/** One rule page: its bytes, the URL it is served under, and the fields it must yield. */
export interface RulePage {
  name: string;
  url: string;
  bytes: Buffer;
  expected: Partial<Metadata>;
}

const URL_ = 'https://www.example.com/articles/2024/story.html?ref=feed';

function page(name: string, html: string | Buffer, expected: Partial<Metadata>, url = URL_): RulePage {
  return { name, url, bytes: typeof html === 'string' ? Buffer.from(html, 'utf8') : html, expected };
}

/** Concatenates text (as latin1, i.e. ASCII here) and raw byte pieces given as hex strings in `hex:` form. */
function bytes(...parts: string[]): Buffer {
  return Buffer.concat(
    parts.map((p) => (p.startsWith('hex:') ? Buffer.from(p.slice(4).replace(/ /g, ''), 'hex') : Buffer.from(p, 'latin1'))),
  );
}

const longHead = Array.from({ length: 40 }, (_, i) => `<meta name="x-filler-${i}" content="filler value number ${i}">`).join(
  '\n',
);

export const RULE_PAGES: RulePage[] = [
  page(
    'meta in body',
    '<html><head><title>T</title></head><body><p>Intro</p><meta name="description" content="Described in the body"></body></html>',
    {
      description: 'Described in the body',
    },
  ),
  page(
    'property wins over an earlier name',
    '<meta name="og:title" content="By name"><meta property="og:title" content="By property"><title>T</title>',
    {
      og_title: 'By property',
    },
  ),
  page(
    'name is the fallback',
    '<meta name="og:description" content="Only by name"><meta name="og:image" content="/by-name.png">',
    {
      og_description: 'Only by name',
      og_image: 'https://www.example.com/by-name.png',
    },
  ),
  page(
    'description needs name, not property',
    '<meta property="description" content="Wrong attribute"><meta name="description" content="Right attribute">',
    {
      description: 'Right attribute',
    },
  ),
  page(
    'upper-case names and rel tokens',
    '<HTML><HEAD><TITLE>Shouting</TITLE><META NAME="DESCRIPTION" CONTENT="Upper"><META PROPERTY="OG:TITLE" CONTENT="OG upper">' +
      '<LINK REL="Canonical" HREF="/canon"><LINK REL="SHORTCUT ICON" HREF="/fav.ico"></HEAD></HTML>',
    {
      title: 'Shouting',
      description: 'Upper',
      og_title: 'OG upper',
      canonical_url: 'https://www.example.com/canon',
      favicon_url: 'https://www.example.com/fav.ico',
    },
  ),
  page(
    'SVG title ignored',
    '<body><svg viewBox="0 0 1 1"><title>Icon title</title><path d="M0"/></svg><p>x</p><title>Real title</title></body>',
    {
      title: 'Real title',
    },
  ),
  page('only an SVG title', '<body><svg><title>Icon only</title></svg></body>', { title: null }),
  page(
    'base href',
    '<head><base href="https://cdn.example.org/assets/"><meta property="og:image" content="img/cover.png"><link rel="icon" href="fav.png"></head>',
    {
      og_image: 'https://cdn.example.org/assets/img/cover.png',
      favicon_url: 'https://cdn.example.org/assets/fav.png',
    },
  ),
  page('relative base href', '<base href="../static/"><link rel="canonical" href="page">', {
    canonical_url: 'https://www.example.com/articles/static/page',
  }),
  page(
    'only the first base with href counts',
    '<base target="_blank"><base href="/one/"><base href="/two/"><meta property="og:url" content="x">',
    {
      og_url: 'https://www.example.com/one/x',
    },
  ),
  page('data: base is refused', '<base href="data:text/html,x"><link rel="canonical" href="c">', {
    canonical_url: 'https://www.example.com/articles/2024/c',
  }),
  page(
    'protocol-relative and relative URLs',
    '<meta property="og:image" content="//cdn.example.net/i.png"><meta property="og:url" content="../2023/old.html"><link rel="canonical" href="?page=2">',
    {
      og_image: 'https://cdn.example.net/i.png',
      og_url: 'https://www.example.com/articles/2023/old.html',
      canonical_url: 'https://www.example.com/articles/2024/story.html?page=2',
    },
  ),
  page(
    'entities decoded once',
    '<title>Fish &amp;amp; Chips &lt;3</title><meta name="description" content="Tom &amp;amp; Jerry &quot;live&quot; &copy=1 &#x27;x&#39;">',
    {
      title: 'Fish &amp; Chips <3',
      description: 'Tom &amp; Jerry "live" &copy=1 \'x\'',
    },
  ),
  page('title is raw text', '<title>A <b>bold</b> &mdash; claim</title>', { title: 'A <b>bold</b> — claim' }),
  page(
    'empty values skipped',
    '<title> \n </title><title>Second title</title><meta name="description" content="  "><meta name="description"><meta name="description" content="Second description">' +
      '<link rel="canonical" href=" "><link rel="canonical" href="/real">',
    { title: 'Second title', description: 'Second description', canonical_url: 'https://www.example.com/real' },
  ),
  page('whitespace collapsed, NBSP kept', '<meta charset="utf-8"><title>\n\t  Many \r\n  spaces\u00a0here  \t</title>', {
    title: 'Many spaces\u00a0here',
  }),
  page(
    'favicon: apple-touch-icon fallback',
    '<link rel="apple-touch-icon-precomposed" href="/apple.png"><link rel="mask-icon" href="/mask.svg">',
    {
      favicon_url: 'https://www.example.com/apple.png',
    },
  ),
  page(
    'favicon: icon beats an earlier apple-touch-icon',
    '<link rel="apple-touch-icon" href="/apple.png"><link rel="icon" href="/icon.png">',
    {
      favicon_url: 'https://www.example.com/icon.png',
    },
  ),
  page('favicon: origin default', '<title>No icon</title>', { favicon_url: 'https://www.example.com/favicon.ico' }),
  page(
    'template contents do not count',
    '<template><title>In template</title><meta name="description" content="In template"></template><title>Outside</title>',
    {
      title: 'Outside',
      description: null,
    },
  ),
  page('noscript counts with scripting off', '<noscript><meta name="description" content="From noscript"></noscript>', {
    description: 'From noscript',
  }),
  page(
    'comments, scripts, styles and textareas hide markup',
    "<!-- <title>Comment</title> --><script>var s = \"<meta name='description' content='script'>\";</script>" +
      '<style>/* <title>Style</title> */</style><textarea><meta property="og:title" content="textarea"></textarea><title>Visible</title>',
    { title: 'Visible', description: null, og_title: null },
  ),
  page(
    'escaped script data',
    '<script><!-- document.write("<script>x()</script>"); <meta name="description" content="still script"> --></script><meta name="description" content="after script">',
    { description: 'after script' },
  ),
  page(
    'attributes with quotes and odd spacing',
    `<meta content='Single "quoted"' name=description ><meta property = "og:title"content="Tight"/>`,
    {
      description: 'Single "quoted"',
      og_title: 'Tight',
    },
  ),
  page(
    'duplicate attributes: first wins',
    '<meta name="description" name="keywords" content="First name wins" content="second">',
    {
      description: 'First name wins',
    },
  ),
  page('link inside SVG does not count', '<svg><link rel="canonical" href="/svg"></svg><link rel="canonical" href="/html">', {
    canonical_url: 'https://www.example.com/html',
  }),
  page(
    'charset only in http-equiv (windows-1251)',
    bytes(
      '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><title>',
      'hex:CF F0 E8 E2 E5 F2',
      '</title>',
    ),
    {
      title: 'Привет',
    },
  ),
  page(
    'Shift_JIS page',
    bytes(
      '<meta charset="Shift_JIS"><title>',
      'hex:93 FA 96 7B 8C EA',
      '</title><meta property="og:image" content="/img?q=',
      'hex:93 FA',
      '">',
    ),
    {
      title: '日本語',
      og_image: 'https://www.example.com/img?q=%93%FA',
    },
  ),
  page(
    'EUC-JP page',
    bytes('<meta http-equiv="content-type" content="text/html;charset=euc-jp"><title>', 'hex:C6 FC CB DC B8 EC', '</title>'),
    { title: '日本語' },
  ),
  page('ISO-8859-1 is windows-1252', bytes('<meta charset="iso-8859-1"><title>caf', 'hex:E9 20 80 20 93 71 94', '</title>'), {
    title: 'café € “q”',
  }),
  page(
    'windows-1251 query encoding',
    bytes(
      '<meta charset="windows-1251"><link rel="canonical" href="/search?q=',
      'hex:CF F0 E8 E2 E5 F2',
      '&amp;x=1#',
      'hex:CF',
      '">',
    ),
    { canonical_url: 'https://www.example.com/search?q=%CF%F0%E8%E2%E5%F2&x=1#%D0%9F' },
  ),
  page(
    'ISO-8859-16, which Node lacks',
    bytes(
      '<meta charset="iso-8859-16"><title>',
      `hex:${Array.from({ length: 96 }, (_, i) => (0xa0 + i).toString(16)).join('')}`,
      '</title>',
    ),
    {
      title: '\u00a0ĄąŁ€„Š§š©Ș«Ź\u00adźŻ°±ČłŽ”¶·žčș»ŒœŸżÀÁÂĂÄĆÆÇÈÉÊËÌÍÎÏĐŃÒÓÔŐÖŚŰÙÚÛÜĘȚßàáâăäćæçèéêëìíîïđńòóôőöśűùúûüęțÿ',
    },
  ),
  page(
    'ISO-2022-JP query encoding',
    bytes(
      '<meta charset="iso-2022-jp"><link rel="canonical" href="/s?q=',
      'hex:1B 24 42 46 7C 4B 5C 1B 28 42',
      '-',
      'hex:1B 28 4A 5C 7E 1B 28 42',
      '&amp;h=&#xFF76;&#x2212;&#xE9;&#x1B;x#',
      'hex:1B 24 42 46 7C 1B 28 42',
      '">',
    ),
    {
      canonical_url: 'https://www.example.com/s?q=%1B$BF|K\\%1B(B-%1B(J\\~&h=%1B$B%+!]%1B(B%26%23233%3B%26%2365533%3Bx#%E6%97%A5',
    },
  ),
  page(
    'EUC-JP bytes that form no character become U+FFFD, as in browsers',
    bytes('<meta charset="euc-jp"><title>', 'hex:93 71 94 20 E8 20 A4 A2', '</title>'),
    {
      title: '\uFFFDq\uFFFD \uFFFD あ',
    },
  ),
  page('EUC-KR is windows-949 (UHC Hangul)', bytes('<meta charset="euc-kr"><title>', 'hex:81 71 B0 A1', '</title>'), {
    title: '걉가',
  }),
  page('Big5 is Big5-HKSCS', bytes('<meta charset="big5"><title>', 'hex:87 40 A4 A4', '</title>'), { title: '䏰中' }),
  page(
    'legacy query encoders: gb18030 four-byte forms, ¥ in Shift_JIS',
    '<meta charset="gb18030"><link rel="canonical" href="/p?q=&#xAC00;&#x20AC;"><meta property="og:url" content="/u?q=&#x1F600;">',
    { canonical_url: 'https://www.example.com/p?q=%827%CF5%A2%E3', og_url: 'https://www.example.com/u?q=%949%FC6' },
  ),
  page(
    'Shift_JIS query: ¥ and − as JIS X 0201 and full-width',
    '<meta charset="shift_jis"><link rel="canonical" href="/p?q=&#xA5;&#x2212;">',
    {
      canonical_url: 'https://www.example.com/p?q=\\%81|',
    },
  ),
  page(
    'UTF-8 BOM beats a meta charset',
    bytes('hex:EF BB BF', '<meta charset="windows-1252"><title>', 'hex:E2 80 94', '</title>'),
    { title: '—' },
  ),
  page(
    'UTF-16LE BOM',
    Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<title>Ünïcödé</title><meta name="description" content="sixteen">', 'utf16le'),
    ]),
    { title: 'Ünïcödé', description: 'sixteen' },
  ),
  page(
    'meta charset deep in a long head',
    bytes(`<head>${longHead}<meta charset="windows-1251"></head><title>`, 'hex:CF F0', '</title>'),
    { title: 'Пр' },
  ),
  page(
    'meta charset after the body starts, within 1024 bytes',
    bytes('<body><p>x</p><meta charset="windows-1251"><title>', 'hex:CF F0', '</title>'),
    { title: 'Пр' },
  ),
  page(
    'meta charset after the body and 1024 bytes is ignored',
    bytes(`<body><p>${'x'.repeat(1100)}</p><meta charset="windows-1251"><title>`, 'hex:CF F0', '</title>'),
    {
      title: 'Ïð',
    },
  ),
  page('undeclared UTF-8 reads as windows-1252 (as Chromium does)', bytes('<title>Caf', 'hex:C3 A9', '</title>'), {
    title: 'CafÃ©',
  }),
  page(
    'an XML declaration names the encoding when nothing else does',
    bytes('<?xml version="1.0" encoding="iso-8859-2"?><title>', 'hex:B3 F3 64 BC', '</title>'),
    { title: 'łódź' },
  ),
  page(
    'a meta charset beats an XML declaration',
    bytes('<?xml version="1.0" encoding="utf-8"?><meta charset="iso-8859-2"><title>', 'hex:B3 F3 64 BC', '</title>'),
    { title: 'łódź' },
  ),
  page(
    'an XML declaration after a blank is a comment',
    bytes(" <?xml version='1.0' encoding='utf-8'?><title>Caf", 'hex:C3 A9', '</title>'),
    { title: 'CafÃ©' },
  ),
  page(
    'an XML declaration counts in a page the pre-scan left after 1024 bytes',
    bytes(`<?xml version="1.0" encoding="iso-8859-2"?><body><p>${'x'.repeat(1100)}</p><title>`, 'hex:B3 F3 64 BC', '</title>'),
    { title: 'łódź' },
  ),
  page(
    'an XML declaration naming ISO-2022-JP, in a short page and after 1024 bytes',
    bytes(
      "<?xml version='1.0' encoding='iso-2022-jp'?><title>",
      'hex:1B 24 42 46 7C 4B 5C 1B 28 42',
      `</title><body><p>${'x'.repeat(1100)}</p><meta name="description" content="`,
      'hex:1B 24 42 46 7C 4B 5C 1B 28 42',
      '">',
    ),
    { title: '日本', description: '日本' },
  ),
  page(
    'an XML declaration whose encoding stands beyond the first 1024 bytes',
    bytes(`<?xml version="1.0" ${'x'.repeat(2000)} encoding="utf-8"?><title>Caf`, 'hex:C3 A9', '</title>'),
    { title: 'Café' },
  ),
  page(
    'a frameset before the body: nothing after it counts',
    '<title>Head title</title><meta name="description" content="In the head"><frameset cols="50%"><frame src="a.html">' +
      '<noframes><meta property="og:title" content="In noframes"></noframes></frameset><meta property="og:title" content="After it"><link rel="icon" href="/late.ico">',
    { title: 'Head title', description: 'In the head', og_title: null, favicon_url: 'https://www.example.com/favicon.ico' },
  ),
  page(
    'a frameset in a body without text removes the body',
    '<title>Head title</title><div><meta name="description" content="In the removed body"><link rel="canonical" href="/gone"></div><frameset><frame src="a.html"></frameset>',
    { title: 'Head title', description: null, canonical_url: null },
  ),
  page(
    'a frameset after body text is ignored',
    '<title>T</title><p>Some text</p><frameset><meta name="description" content="Still counts"></frameset>',
    {
      description: 'Still counts',
    },
  ),
  page(
    'a frameset after an image is ignored',
    '<div><img src="x.png"><meta name="description" content="After the image"></div><frameset></frameset>',
    {
      description: 'After the image',
    },
  ),
  page(
    'whitespace references and a hidden input leave a frameset free to remove the body',
    '<div>&#32;&Tab;<input type="HIDDEN"><meta name="description" content="Removed"></div><frameset></frameset>',
    { description: null },
  ),
  page(
    'a template in the head does not stop a frameset (Chromium)',
    '<template></template><div><meta name="description" content="Removed"></div><frameset></frameset>',
    { description: null },
  ),
  page(
    'a frameset inside a template is ignored',
    '<div><template><frameset></template><meta name="description" content="Kept"></div>',
    { description: 'Kept' },
  ),
  page(
    'CDATA text in SVG stops a later frameset',
    '<svg><![CDATA[text]]></svg><meta name="description" content="Kept"><frameset></frameset>',
    {
      description: 'Kept',
    },
  ),
  page(
    'URLs escaped as Chromium does: | and ^ in paths, * in hosts',
    '<link rel="canonical" href="/a|b^c?q=|^#|^"><meta property="og:image" content="http://e*x.example/i|.png">',
    { canonical_url: 'https://www.example.com/a%7Cb%5Ec?q=|^#|^', og_image: 'http://e%2Ax.example/i%7C.png' },
  ),
  page(
    'meta refresh does not navigate away',
    '<meta http-equiv="refresh" content="0; url=https://elsewhere.example/"><title>Stay</title>',
    { title: 'Stay' },
  ),
];
