/**
 * A Cross Industry Invoice as plain data, and its XML in the EN 16931 XSD's element order. Amounts are
 * integer cents (rates hundredths of a percent) so a generated invoice adds up exactly; a fault is a
 * change to this data, written out like any other invoice.
 */

/** A VAT category with its rate and exemption reason (BT-118…BT-121, BT-151/152, BT-95/96). */
export interface Tax {
  category: string;
  /** hundredths of a percent (2000 = 20 %); undefined: no rate element */
  rate?: number;
  reason?: string;
  reasonCode?: string;
}

export interface Party {
  name?: string;
  vat?: string;
  fc?: string;
  legal?: string;
  country?: string;
  address?: boolean;
  /** an electronic address; scheme '' writes it without one */
  uriScheme?: string;
}

export interface LineAllowance {
  charge: boolean;
  amount: number;
  reason?: string;
}

export interface Line {
  id?: string;
  name?: string;
  qty: number;
  unit?: string;
  price?: number;
  gross?: number;
  tax: Tax;
  net: number;
  /** cents written with a third decimal digit (a BR-DEC fault) */
  netText?: string;
  acs: LineAllowance[];
  globalIdScheme?: string;
  attribute?: { name?: string; value?: string };
  period?: [string | undefined, string | undefined];
}

export interface DocAllowance {
  charge: boolean;
  amount: number;
  base?: number;
  reason?: string;
  reasonCode?: string;
  tax: Tax;
}

export interface Breakdown {
  tax: Tax;
  basis: number;
  vat: number;
  taxPointDate?: string;
  dueDateCode?: string;
}

export interface Totals {
  line: number;
  allowance?: number;
  charge?: number;
  basis: number;
  vat: number;
  grand: number;
  prepaid?: number;
  rounding?: number;
  due: number;
  /** a raw text for one total (a BR-DEC fault), by element name */
  text?: Record<string, string>;
}

export interface Model {
  number?: string;
  type: string;
  issue: string;
  currency?: string;
  seller: Party;
  buyer: Party;
  taxRep?: Party;
  payee?: string;
  lines: Line[];
  acs: DocAllowance[];
  breakdowns: Breakdown[];
  totals: Totals;
  delivery?: string;
  shipTo?: string;
  period?: [string | undefined, string | undefined];
  payment?: { code: string; iban?: string; proprietary?: string };
}

/** cents as the XML writes them: 1234 → "12.34", -5 → "-0.05" */
export function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function el(name: string, body: string | undefined, attrs = ''): string {
  return body === undefined ? '' : `<${name}${attrs}>${body}</${name}>`;
}

function date(d: string | undefined): string | undefined {
  return d === undefined ? undefined : el('udt:DateTimeString', d, ' format="102"');
}

function taxXml(t: Tax, name: string): string {
  return el(
    name,
    el('ram:TypeCode', 'VAT') +
      el('ram:CategoryCode', t.category) +
      (t.rate === undefined ? '' : el('ram:RateApplicablePercent', money(t.rate))),
  );
}

function partyXml(p: Party, name: string): string {
  const regs =
    (p.vat ? el('ram:SpecifiedTaxRegistration', el('ram:ID', p.vat, ' schemeID="VA"')) : '') +
    (p.fc ? el('ram:SpecifiedTaxRegistration', el('ram:ID', p.fc, ' schemeID="FC"')) : '');
  return el(
    name,
    el('ram:Name', p.name === undefined ? undefined : esc(p.name)) +
      (p.legal ? el('ram:SpecifiedLegalOrganization', el('ram:ID', p.legal, ' schemeID="0002"')) : '') +
      (p.address === false
        ? ''
        : el(
            'ram:PostalTradeAddress',
            el('ram:PostcodeCode', '75001') +
              el('ram:LineOne', '1 rue Exemple') +
              el('ram:CityName', 'Paris') +
              el('ram:CountryID', p.country),
          )) +
      (p.uriScheme === undefined
        ? ''
        : el(
            'ram:URIUniversalCommunication',
            el('ram:URIID', 'billing@example.org', p.uriScheme ? ` schemeID="${p.uriScheme}"` : ''),
          )) +
      regs,
  );
}

function allowanceXml(a: DocAllowance): string {
  return el(
    'ram:SpecifiedTradeAllowanceCharge',
    el('ram:ChargeIndicator', el('udt:Indicator', String(a.charge))) +
      (a.base === undefined ? '' : el('ram:BasisAmount', money(a.base))) +
      el('ram:ActualAmount', money(a.amount)) +
      el('ram:ReasonCode', a.reasonCode) +
      el('ram:Reason', a.reason) +
      taxXml(a.tax, 'ram:CategoryTradeTax'),
  );
}

function lineXml(l: Line): string {
  return el(
    'ram:IncludedSupplyChainTradeLineItem',
    el('ram:AssociatedDocumentLineDocument', el('ram:LineID', l.id)) +
      el(
        'ram:SpecifiedTradeProduct',
        (l.globalIdScheme === undefined
          ? ''
          : el('ram:GlobalID', '4012345678901', l.globalIdScheme ? ` schemeID="${l.globalIdScheme}"` : '')) +
          el('ram:Name', l.name) +
          (l.attribute
            ? el(
                'ram:ApplicableProductCharacteristic',
                el('ram:Description', l.attribute.name) + el('ram:Value', l.attribute.value),
              )
            : ''),
      ) +
      el(
        'ram:SpecifiedLineTradeAgreement',
        (l.gross === undefined ? '' : el('ram:GrossPriceProductTradePrice', el('ram:ChargeAmount', money(l.gross)))) +
          (l.price === undefined ? '' : el('ram:NetPriceProductTradePrice', el('ram:ChargeAmount', money(l.price)))),
      ) +
      el(
        'ram:SpecifiedLineTradeDelivery',
        el('ram:BilledQuantity', String(l.qty), l.unit === undefined ? '' : ` unitCode="${l.unit}"`),
      ) +
      el(
        'ram:SpecifiedLineTradeSettlement',
        taxXml(l.tax, 'ram:ApplicableTradeTax') +
          (l.period
            ? el(
                'ram:BillingSpecifiedPeriod',
                el('ram:StartDateTime', date(l.period[0])) + el('ram:EndDateTime', date(l.period[1])),
              )
            : '') +
          l.acs
            .map((a) =>
              el(
                'ram:SpecifiedTradeAllowanceCharge',
                el('ram:ChargeIndicator', el('udt:Indicator', String(a.charge))) +
                  el('ram:ActualAmount', money(a.amount)) +
                  el('ram:Reason', a.reason),
              ),
            )
            .join('') +
          el('ram:SpecifiedTradeSettlementLineMonetarySummation', el('ram:LineTotalAmount', l.netText ?? money(l.net))),
      ),
  );
}

function breakdownXml(b: Breakdown): string {
  const t = b.tax;
  return el(
    'ram:ApplicableTradeTax',
    el('ram:CalculatedAmount', money(b.vat)) +
      el('ram:TypeCode', 'VAT') +
      el('ram:ExemptionReason', t.reason) +
      el('ram:BasisAmount', money(b.basis)) +
      el('ram:CategoryCode', t.category) +
      el('ram:ExemptionReasonCode', t.reasonCode) +
      el('ram:TaxPointDate', date(b.taxPointDate)) +
      el('ram:DueDateTypeCode', b.dueDateCode) +
      (t.rate === undefined ? '' : el('ram:RateApplicablePercent', money(t.rate))),
  );
}

function totalsXml(t: Totals, currency: string | undefined): string {
  const put = (name: string, cents: number | undefined, attrs = '') =>
    cents === undefined ? '' : el(`ram:${name}`, t.text?.[name] ?? money(cents), attrs);
  return el(
    'ram:SpecifiedTradeSettlementHeaderMonetarySummation',
    put('LineTotalAmount', t.line) +
      put('ChargeTotalAmount', t.charge) +
      put('AllowanceTotalAmount', t.allowance) +
      put('TaxBasisTotalAmount', t.basis) +
      put('TaxTotalAmount', t.vat, ` currencyID="${currency ?? 'EUR'}"`) +
      put('RoundingAmount', t.rounding) +
      put('GrandTotalAmount', t.grand) +
      put('TotalPrepaidAmount', t.prepaid) +
      put('DuePayableAmount', t.due),
  );
}

/** The invoice's XML (EN 16931 guideline), elements in the XSD's order. */
export function invoiceXml(m: Model): string {
  const NS =
    'xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice ${NS}>${el(
    'rsm:ExchangedDocumentContext',
    el('ram:GuidelineSpecifiedDocumentContextParameter', el('ram:ID', 'urn:cen.eu:en16931:2017')),
  )}${el('rsm:ExchangedDocument', el('ram:ID', m.number) + el('ram:TypeCode', m.type) + el('ram:IssueDateTime', date(m.issue)))}${el(
    'rsm:SupplyChainTradeTransaction',
    m.lines.map(lineXml).join('') +
      el(
        'ram:ApplicableHeaderTradeAgreement',
        partyXml(m.seller, 'ram:SellerTradeParty') +
          partyXml(m.buyer, 'ram:BuyerTradeParty') +
          (m.taxRep ? partyXml(m.taxRep, 'ram:SellerTaxRepresentativeTradeParty') : ''),
      ) +
      el(
        'ram:ApplicableHeaderTradeDelivery',
        (m.shipTo ? el('ram:ShipToTradeParty', el('ram:PostalTradeAddress', el('ram:CountryID', m.shipTo))) : '') +
          (m.delivery ? el('ram:ActualDeliverySupplyChainEvent', el('ram:OccurrenceDateTime', date(m.delivery))) : ''),
      ) +
      el(
        'ram:ApplicableHeaderTradeSettlement',
        el('ram:InvoiceCurrencyCode', m.currency) +
          (m.payee === undefined ? '' : el('ram:PayeeTradeParty', el('ram:Name', esc(m.payee)))) +
          (m.payment
            ? el(
                'ram:SpecifiedTradeSettlementPaymentMeans',
                el('ram:TypeCode', m.payment.code) +
                  (m.payment.iban === undefined && m.payment.proprietary === undefined
                    ? ''
                    : el(
                        'ram:PayeePartyCreditorFinancialAccount',
                        el('ram:IBANID', m.payment.iban) + el('ram:ProprietaryID', m.payment.proprietary),
                      )),
              )
            : '') +
          m.breakdowns.map(breakdownXml).join('') +
          (m.period
            ? el(
                'ram:BillingSpecifiedPeriod',
                el('ram:StartDateTime', date(m.period[0])) + el('ram:EndDateTime', date(m.period[1])),
              )
            : '') +
          m.acs.map(allowanceXml).join('') +
          totalsXml(m.totals, m.currency),
      ),
  )}</rsm:CrossIndustryInvoice>\n`;
}
