/**
 * The title classifier's rules, kept as data: what each seniority and department is called, and which
 * words of an English job title put a person in it. title-classifier.ts applies them; docs/reading.md
 * ("Buying committee") lists the keys, which admins use when they configure a committee.
 *
 * Patterns run on the normalized title (title-classifier.ts `normalizeTitle`): lowercase ASCII words and
 * single spaces, initials joined (`V.P.` → `vp`), `&` a word of its own, every other punctuation mark a
 * space (`Sr. Co-founder` → `sr co founder`, `VP, Eng` → `vp eng`).
 */

export const SENIORITY_KEYS = ['c_level', 'vp', 'head', 'director', 'manager', 'lead', 'senior', 'individual_contributor', 'intern'] as const;
export type SeniorityKey = (typeof SENIORITY_KEYS)[number];

export const DEPARTMENT_KEYS = [
  'executive',
  'engineering',
  'product',
  'design',
  'data',
  'it_security',
  'developer_relations',
  'marketing',
  'sales',
  'customer_success',
  'finance',
  'legal',
  'hr',
  'operations',
  'research',
] as const;
export type DepartmentKey = (typeof DEPARTMENT_KEYS)[number];

/** What each class holds, in words (the documentation and `hearth buying-committee keys` show them). */
export const SENIORITY_CLASSES: Record<SeniorityKey, string> = {
  c_level: 'Chiefs (CEO, CTO, Chief Revenue Officer, …), presidents, founders, owners, partners of a firm, managing directors, chairs and board members',
  vp: 'Vice presidents (VP, SVP, EVP, AVP) and general counsels',
  head: 'Heads of a function or unit ("Head of Marketing"), general managers',
  director: 'Directors (senior, associate, executive directors), chiefs of staff',
  manager: 'Managers and supervisors: every title with "manager" (a Product Manager or Account Manager too), CSM, PM, PMM, TPM',
  lead: 'Leads, principals, staff-level engineers and designers, architects, distinguished engineers, fellows',
  senior: 'Senior individual contributors (Senior, Sr., level III and IV)',
  individual_contributor:
    'Other individual contributors (engineers, specialists, associates, representatives, juniors, assistants), and any title with a department and no rank',
  intern: 'Interns, trainees, apprentices, working students',
};

export const DEPARTMENT_CLASSES: Record<DepartmentKey, string> = {
  executive: 'General management: CEOs, founders, owners, presidents, managing directors, general managers, chiefs of staff, board members',
  engineering: 'Software and hardware engineering, QA, DevOps and SRE, architecture, CTOs, R&D',
  product: 'Product management (Product Manager, Product Owner, Head of Product, CPO)',
  design: 'Product, UX, UI, visual and graphic design, user research, creative and art direction',
  data: 'Data science, data engineering, analytics, BI, machine learning and AI, databases',
  it_security: 'IT, information systems, networks, help desk, and security (CIO, CISO)',
  developer_relations: 'Developer relations: developer advocates and evangelists, DevRel, community, open source programs',
  marketing: 'Marketing, growth, brand, content, communications and PR, social media, product marketing, events',
  sales: 'Sales, account executives and managers, SDRs and BDRs, business development, partnerships, sales engineering, revenue (CRO)',
  customer_success: 'Customer success and support, customer experience, technical account management, implementation and onboarding',
  finance: 'Finance, accounting, controlling, FP&A, tax, treasury, payroll, investor relations',
  legal: 'Legal counsel, attorneys, paralegals, compliance, privacy',
  hr: 'HR and people: recruiting and talent, people operations, HR business partners, learning and development',
  operations: 'Operations (COO, business, sales and revenue operations), supply chain, procurement, facilities, program and project management, administration',
  research: 'Research and science outside data (researchers, research scientists, chief scientists)',
};

export interface TitleRule<K extends string> {
  key: K;
  pattern: RegExp;
}

/**
 * Phrases removed before any rule runs: they name someone else's rank, not the person's
 * ("Executive Assistant to the CEO", "Advisor, Office of the CTO").
 */
export const OTHER_PEOPLES_RANKS: RegExp[] = [
  /\boffice of the \w+\b/g,
  /\b(?:to|for) (?:the )?(?:ceo|cto|cfo|coo|cmo|cro|cpo|cio|ciso|chro|president|founders?|co founders?|chairman|chair|board|vp|svp|evp|gm|md|managing director|general manager|executives?|chief \w+(?: \w+)? officer|leadership team|c suite|c level)\b/g,
];

/**
 * Seniority: the first rule that matches decides, so the order is the precedence. Interns and assistants
 * come first ("Intern, Office of the CTO", "Assistant to the President"), then ranks from the highest
 * down ("Senior Vice President" is a VP, "Sr. Staff SWE" a lead). A title that matches none, but has a
 * department, is an individual contributor.
 */
export const SENIORITY_RULES: TitleRule<SeniorityKey>[] = [
  {
    key: 'intern',
    pattern:
      /\b(?:interns?|internship|trainee|apprentice|apprenticeship|working student|co op|coop|summer (?:analyst|associate)|student (?:worker|assistant))\b/,
  },
  {
    key: 'individual_contributor',
    pattern:
      /\b(?:assistant|asst)\b(?! (?:vice president|vp|director|dir|manager|mgr|general counsel|controller|head|principal|treasurer))|\bfounders? (?:associate|office)\b/,
  },
  { key: 'c_level', pattern: /\bchief\b(?! of staff)/ },
  { key: 'c_level', pattern: /\b(?:ceo|cto|cfo|coo|cmo|cro|cpo|cio|ciso|cso|cdo|chro|cco|clo|cao|caio|cbo|cgo|cxo)s?\b/ },
  { key: 'c_level', pattern: /(?<!\bvice )\bpresident\b/ },
  { key: 'c_level', pattern: /\b(?:co ?)?founders?\b|\bfounding (?:partner|ceo|cto)\b/ },
  {
    key: 'c_level',
    pattern:
      /(?<!\b(?:product|process|service|project|content|data|system|systems|application|platform|budget|risk|control|account|technical|feature|solution|program|quota) )\b(?:co ?)?owner\b/,
  },
  {
    key: 'c_level',
    pattern:
      /\b(?:chairman|chairwoman|chairperson|chair of the board|board chair|executive chair|board member|member of the board|board director|board of directors)\b/,
  },
  { key: 'c_level', pattern: /\bmanaging director\b|\bproprietor\b|\bentrepreneur\b/ },
  {
    key: 'c_level',
    pattern:
      /(?:^|\b(?:managing|general|founding|equity|senior|name|venture|operating) )partner\b(?! (?:manager|management|marketing|success|sales|development|programs?|ecosystem|engineer|engineering|operations|enablement|account|alliances?|relations|lead|director|specialist|executive|solutions?|network|integrations?|experience|support|channel)\b)/,
  },
  { key: 'vp', pattern: /\b(?:vice presidents?|vice pres|vps?|svp|evp|avp|general counsel)\b/ },
  { key: 'head', pattern: /\bhead\b|\bgeneral manager\b|\bgm\b/ },
  { key: 'director', pattern: /\b(?:directors?|dir)\b|\bchief of staff\b/ },
  {
    key: 'manager',
    pattern: /\b(?:managers?|mgr|supervisor|superintendent|csm|pm|pmm|tpm|apm|gpm)\b|\bmanagement\b(?! (?:consultant|trainee|analyst|associate|accountant))/,
  },
  {
    key: 'lead',
    pattern:
      /\b(?:lead|leads|leader)\b(?! gen(?:eration)?\b)|\b(?:principal|distinguished|fellow|architect|tl)\b|\bstaff (?=(?:software|engineer|engineering|swe|sde|developer|designer|design|data|scientist|product|architect|research|researcher|ml|machine|security|site|frontend|front|backend|back|full|fullstack|infrastructure|platform|ux|analyst|technical|tech|mobile|ios|android|cloud|systems|applied|quality|test|hardware|firmware|devops|sre|member)\b)/,
  },
  { key: 'senior', pattern: /\b(?:senior|sr|snr|iii|iv)\b/ },
  {
    key: 'individual_contributor',
    pattern:
      /\b(?:junior|jr|entry level|associate|specialist|representative|rep|coordinator|engineer|developer|analyst|designer|consultant|advocate|evangelist|accountant|bookkeeper|recruiter|sourcer|scientist|researcher|administrator|admin|technician|writer|agent|officer|executive|clerk|programmer|swe|sde|sdet|sre|sdr|bdr|ae|paralegal|attorney|counsel|lawyer|strategist|planner|buyer|editor|producer|tester|member of technical staff|mts|generalist|partner)\b/,
  },
];

/**
 * Departments, in three tiers: an officer's title decides first ("Co-founder & CTO" is engineering), then
 * the functions, then general management ("Founder, Head of Growth" is marketing; "Founder" alone is
 * executive). Within a tier the match that starts first in the title wins, and at the same place the
 * longer one ("Product Marketing Manager" is marketing, "Sales Engineer" sales, "Developer Advocate"
 * developer relations), then the rule listed first.
 */
export const DEPARTMENT_TIERS: TitleRule<DepartmentKey>[][] = [
  [
    { key: 'executive', pattern: /\bceos?\b|\bchief executive\b/ },
    {
      key: 'engineering',
      pattern: /\bcto\b|\bchief (?:technology|technical|technologist|architect|engineer|engineering|software|product and technology|product & technology)\b/,
    },
    { key: 'finance', pattern: /\bcfo\b|\bchief (?:financial|finance|accounting)\b/ },
    { key: 'operations', pattern: /\bcoo\b|\bchief (?:operating|operations|administrative)\b/ },
    { key: 'marketing', pattern: /\bcmo\b|\bchief (?:marketing|growth|brand|communications|content)\b/ },
    { key: 'sales', pattern: /\bcro\b|\bchief (?:revenue|sales|commercial|business|partnerships?)\b/ },
    { key: 'product', pattern: /\bchief product\b/ },
    { key: 'hr', pattern: /\bchro\b|\bchief (?:human resources|hr|people|talent|diversity|culture)\b/ },
    { key: 'it_security', pattern: /\b(?:cio|ciso)\b|\bchief (?:information|security|trust|digital information|cyber ?security)\b/ },
    { key: 'data', pattern: /\bcaio\b|\bchief (?:data|analytics|ai|artificial intelligence)\b/ },
    { key: 'legal', pattern: /\bclo\b|\bchief (?:legal|compliance|privacy)\b/ },
    { key: 'customer_success', pattern: /\bchief (?:customer|client|experience)\b/ },
    { key: 'design', pattern: /\bchief (?:design|creative)\b/ },
    { key: 'research', pattern: /\bchief (?:scientist|science|scientific|research)\b/ },
    { key: 'developer_relations', pattern: /\bchief (?:evangelist|developer advocate|community)\b/ },
  ],
  [
    {
      key: 'developer_relations',
      pattern:
        /\b(?:developer relations|devrel|dev rel|developer advocate|developer advocacy|developer evangelist|developer evangelism|technical evangelist|evangelist|advocacy|developer programs?|developer community|developer marketing|community|open source|ospo)\b|\bdeveloper experience advocate\b/,
    },
    {
      key: 'it_security',
      pattern:
        /\b(?:security|infosec|cybersecurity|cyber|secops|appsec|soc analyst|penetration tester|pentester|it|information technology|information systems|infrastructure and operations|sysadmin|system administrator|systems administrator|network|networks|help desk|helpdesk|service desk|desktop support|data center|datacenter|end user computing|(?:linux|unix|windows|vmware|citrix|microsoft|active directory) (?:administrator|admin|engineer))\b/,
    },
    {
      key: 'data',
      pattern:
        /\b(?:data|analytics|business intelligence|bi|machine learning|ml|mlops|ai|artificial intelligence|deep learning|nlp|computer vision|statistician|statistics|database|databases|dba|big data|quantitative analyst|quant)\b/,
    },
    {
      key: 'design',
      pattern:
        /\b(?:design|designer|designers|product design(?:ers?)?|content design(?:ers?)?|brand design(?:ers?)?|ux|ui|user experience|user interface|user research|user researcher|ux research|interaction|visual|graphic|graphics|creative|art director|illustrator|animator|motion)\b/,
    },
    {
      key: 'customer_success',
      pattern:
        /\b(?:customer success|csm|customer support|support|customer experience|cx|customer care|customer service|customer services|client success|client services|client service|technical account manager|technical account management|tam|implementation|implementations|onboarding|professional services|customer operations|customer engineer|customer engineering|customer solutions|customer advocacy|solutions delivery)\b/,
    },
    {
      key: 'hr',
      pattern:
        /(?:\b\w+ )?\brecruit(?:er|ers|ing|ment)\b|\b(?:hr|hrbp|human resources|human resource|people|talent|talent acquisition|sourcer|sourcing|compensation|benefits|learning and development|learning & development|l & d|workplace experience|employee experience|diversity|dei)\b/,
    },
    {
      key: 'legal',
      pattern:
        /\b(?:legal|counsel|attorney|lawyer|paralegal|compliance|regulatory|privacy|data protection|contracts|solicitor|barrister|litigation|intellectual property)\b/,
    },
    {
      key: 'finance',
      pattern:
        /\b(?:finance|financial|accounting|accountant|accounts payable|accounts receivable|controller|comptroller|treasurer|treasury|fp & a|fpa|financial planning|bookkeeper|bookkeeping|tax|audit|auditor|investor relations|billing|payroll|revenue accountant|revenue accounting|credit|actuary|actuarial)\b/,
    },
    {
      key: 'operations',
      pattern:
        /\b(?:sales operations|sales ops|salesops|revenue operations|revenue ops|revops|rev ops|business operations|bizops|biz ops|go to market operations|gtm operations|deal desk|business analyst|crm|salesforce administrator|salesforce admin|trust & safety|trust and safety)\b/,
    },
    {
      key: 'marketing',
      pattern:
        /\b(?:marketing|marketer|product marketing|pmm|growth|brand|branding|content|seo|sem|ppc|demand generation|demand gen|lead generation|communications|comms|public relations|pr|social media|copywriter|copywriting|events?|field marketing|account based marketing|abm|video|videographer|photographer|advertising|campaigns?|media|digital marketing|partner marketing)\b/,
    },
    {
      key: 'sales',
      pattern:
        /\b(?:sales|account executive|ae|sdr|bdr|business development|business developer|bizdev|biz dev|account manager|account management|account director|accounts?|key account|key accounts|enterprise accounts?|partnerships|partnership|partner manager|partner management|alliances|channel|revenue|commercial|presales|pre sales|solutions engineer|solutions engineering|solutions consultant|solutions architect|solution architect|solution engineer|sales engineer|inside sales|territory|deal|enablement)\b/,
    },
    {
      key: 'product',
      pattern:
        /\b(?:growth product(?: manager| management| lead)?|growth pm|product|products|product manager|product management|product owner|product lead|pm|apm|gpm|product analyst|product operations)\b/,
    },
    {
      key: 'research',
      pattern: /\b(?:research|researcher|scientist|science|scientific)\b/,
    },
    {
      key: 'engineering',
      pattern:
        /\b(?:engineer|engineers|engineering|eng|developer|developers|development|software|swe|sde|sdet|programmer|coder|devops|dev ops|sre|site reliability|qa|quality assurance|quality engineering|test engineer|tester|test automation|architect|architecture|frontend|front end|backend|back end|full stack|fullstack|mobile|ios|android|web developer|platform|infrastructure|cloud|firmware|embedded|hardware|technology|technical lead|tech lead|technical director|technical program manager|tpm|r & d|research and development|research & development|product engineer|product engineering|member of technical staff|mts|technical writer|technical writing|documentation|docs|scrum master|agile coach)\b/,
    },
    {
      key: 'operations',
      pattern:
        /\b(?:operations|ops|supply chain|logistics|procurement|purchasing|facilities|facility|office manager|office management|administrative|administration|admin|office|executive assistant|program manager|program management|programme manager|project manager|project management|project coordinator|program coordinator|project specialist|program specialist|project analyst|pmo|strategy|workplace|vendor management|fulfillment|warehouse|planning)\b|\b(?:assistant|asst)\b(?! (?:vice president|vp|director|dir|manager|mgr|general counsel|controller|head|principal|treasurer))/,
    },
  ],
  [
    {
      key: 'executive',
      pattern:
        /(?<!\bvice )\bpresident\b|\b(?:(?:co ?)?founders?|founding partner|owner|co owner|chairman|chairwoman|chairperson|chair|board|managing director|managing partner|general partner|partner|general manager|gm|country manager|chief of staff|executive director|entrepreneur|proprietor|md|principal|c suite|c level|executive)\b/,
    },
    { key: 'data', pattern: /\b(?:analyst|analysts|insights)\b/ },
  ],
];

/**
 * Words that mark a title written in another language (letters outside ASCII mark one too): such a title
 * is left unclassified rather than read by its English-looking words ("Directeur Marketing").
 */
export const FOREIGN_WORDS = new Set([
  'directeur',
  'directrice',
  'dirigeant',
  'fondateur',
  'fondatrice',
  'gerant',
  'gerante',
  'responsable',
  'charge',
  'chargee',
  'stagiaire',
  'alternant',
  'alternante',
  'ingenieur',
  'ingenieure',
  'commerciale',
  'informatique',
  'adjoint',
  'adjointe',
  'conseiller',
  'conseillere',
  'gerente',
  'jefe',
  'jefa',
  'encargado',
  'encargada',
  'ingeniero',
  'ingeniera',
  'desarrollador',
  'desarrolladora',
  'coordinador',
  'coordinadora',
  'ejecutivo',
  'ejecutiva',
  'vendedor',
  'vendedora',
  'ventas',
  'comercial',
  'asesor',
  'asesora',
  'gestor',
  'gestora',
  'analista',
  'especialista',
  'auxiliar',
  'contador',
  'contadora',
  'becario',
  'becaria',
  'fundador',
  'fundadora',
  'socio',
  'socia',
  'presidente',
  'vicepresidente',
  'mercadeo',
  'mercadotecnia',
  'recursos',
  'humanos',
  'finanzas',
  'contabilidad',
  'administrativo',
  'administrativa',
  'tecnico',
  'sistemas',
  'diretor',
  'diretora',
  'desenvolvedor',
  'desenvolvedora',
  'coordenador',
  'coordenadora',
  'programador',
  'programadora',
  'estagiario',
  'vendas',
  'direttore',
  'direttrice',
  'responsabile',
  'sviluppatore',
  'consulente',
  'tirocinante',
  'stagista',
  'ingegnere',
  'amministratore',
  'delegato',
  'geschaftsfuhrer',
  'geschaeftsfuehrer',
  'leiter',
  'leiterin',
  'entwickler',
  'entwicklerin',
  'vertrieb',
  'verkauf',
  'mitarbeiter',
  'mitarbeiterin',
  'berater',
  'beraterin',
  'inhaber',
  'inhaberin',
  'vorstand',
  'praktikant',
  'praktikantin',
  'werkstudent',
  'werkstudentin',
  'abteilungsleiter',
  'projet',
  'produit',
  'ventes',
  'equipe',
  'societe',
  'bedrijfsleider',
  'eigenaar',
  'medewerker',
  'adviseur',
  'directeur',
  'oprichter',
  'verkoper',
  'ontwikkelaar',
]);
