package shell

import (
	"encoding/hex"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// codeItem is something interpreter code would run: a shell string
// (os.system("...")) or an argument vector (subprocess.run([...]),
// shutil.rmtree(p) as "rm -r -f p", open(p) as "cat p").
type codeItem struct {
	shell string
	argv  []string
	via   string
	text  string
	notes []string
	// pos is where in the code the item's call starts, for ordering.
	pos int
	// known: the item counts only once the session gives its
	// environment variables values (open(os.environ["KEY_FILE"])).
	known bool
	// assigned: the command's output is bound to a name the code uses
	// without showing it (capturedUnshown), as a shell's X=$(cmd) is.
	assigned bool
	// dir is the working directory the code gave the command (cwd=).
	dir string
	// env are the environment variables the code set for the
	// processes it starts; shared between items, never modified.
	env map[string]string
}

// Calls whose first argument is a shell command line.
var shellCallRe = refilter.MustCompile(`(?:\b(?:Sys\.command|Unix\.system|callCommand|spawnCommand|readProcess|readCreateProcess|System\.cmd|exec\.Command|commandLine|os\.(?:exec|spawn)[lv]p?e?|os\.posix_spawnp?|os\.system|os\.popen|popen2?|commands\.getoutput|subprocess\.(?:getoutput|getstatusoutput)|system|exec_command|send_command(?:_timing|_expect)?|shell_exec|passthru|proc_open|execSync|execFileSync|execFile|exec|spawnSync|spawn|run|call|check_call|check_output|Popen|do shell script|doShellScript|io\.popen|os\.execute|Shell)\s*\(?\s*)`)

// String literals in Python, Perl, Ruby, JS and PHP (prefixes for Python).
var strLitRe = refilter.MustCompile(`(?s)^(?:[rRbBuUfF]{0,2})("""(.*?)"""|'''(.*?)'''|"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|` + "`((?:[^`\\\\]|\\\\.)*)`" + `)`)

var (
	pyAssignRe = refilter.MustCompile(`(?m)(?:^|[;{]|\bBEGIN\s*\{)\s*(?:(?:const|let|var|val|my|our|local|set)\s+)?\$?([A-Za-z_][A-Za-z0-9_]*)(?:\s*,\s*(?:_|err))?\s*:?=\s*`)
	rmtreeRe   = refilter.MustCompile(`\b(?:removeItem|Directory\.Delete|os\.RemoveAll|Deno\.removeSync|Deno\.remove|file delete -force|file delete -force --|shutil\.rmtree|rmtree|remove_tree|rmSync|rmdirSync|rm_rf|rm_r|remove_dir_all|rimraf(?:\.sync)?|FileUtils\.rm_rf|fs\.rm|rmdir)\s*\(\s*(?:(?:at|atPath)\s*:\s*)?`)
	removeRe   = refilter.MustCompile(`\b(?:os\.remove|os\.unlink|unlinkSync|File\.delete|unlink|Path\([^)]*\)\.unlink)\s*\(\s*|\bunlink\s+glob\s*\(\s*`)
	openRe     = refilter.MustCompile(`\b(?:read_to_string|fs::read|os\.OpenFile|File\.readlines|IO\.readlines|CURLFile|curl_file_create|upload_file|open|readfile|Deno\.readTextFile|Deno\.readFile|Bun\.file|os\.ReadFile|ioutil\.ReadFile|Files\.readString|Files\.readAllBytes|Files\.readAllLines|File\.open|readLines|readChar|readRDS|read_file|dotenv_values|read_text|read_bytes|readFileSync|readFile|File\.read!?|File\.binread|IO\.binread|file_get_contents|IO\.read|expanduser|Path\.expand|Path|fopen|io\.open|codecs\.open|file)\s*\(\s*`)
	b64Re      = refilter.MustCompile(`\b(?:base64\.b64decode|b64decode|base64\.decodebytes|decode_base64|base64_decode|atob|Base64\.decode64)\s*\(\s*`)
	decoderRe  = refilter.MustCompile(`strrev\(|array_map\(\s*["']chr|sprintf\(\s*["'][^"']*%c|b(64|32|16|85)decode|a85decode|decodebytes|fromhex|unhexlify|codecs\.decode|\brot.?13|\bchr\(|\bmap\(\s*chr\b|fromCharCode|\[::-1\]|\bpack\(|decode_base64|decode64|base64_decode|base64_?dec(?:ode)?\b|hex2bin|\batob\(|Buffer\.from\(|str_rot13|gzinflate|gzdecode|zlib\.decompress|\.reverse\(\)|\bscalar\s+reverse\b|\.tr\(\s*["']a-z["']\s*,\s*["']n-za-m|\.reverse\b`)
	netReadRe  = refilter.MustCompile(`\burlopen\s*\(|\brequests\.(get|post)\s*\(|\bhttpx\.(get|post)\s*\(|\burllib\.request\.|\bfetch\(\s*['"]https?://|Net::HTTP\.get|\bURI\.open\(|\bopen-uri\b|file_get_contents\(\s*['"]https?://|\bLWP::Simple\b|\bhttp\.get\(|\burlretrieve\s*\(`)
	wholeEnvRe = refilter.MustCompile(`^\s*\(?\s*(?:(?:json\.dumps|pprint\.pformat|str|repr)\(\s*)?(?:dict\(\s*|JSON\.stringify\(\s*|Object\.(?:entries|keys)\(\s*)?(?:os\.environ|process\.env|ENV(?:\.to_h)?|\$_ENV|\$_SERVER|(?:Sys\.)?getenv\(\s*\)|%ENV)(?:\s*\)|\s*,[^)]*){0,4}\s*;?\s*$`)
	envLoopRe  = refilter.MustCompile(`\bfor\s+\w+\s*,\s*\w+\s+in\s+(?:sorted\()?os\.environ\.items\(\)|\bfor\s+\w+\s+in\s+(?:sorted\()?os\.environ\b|Object\.entries\(process\.env\)\.forEach|\bfor\s*\(\s*(?:const|let|var)\s*\[\s*\w+\s*,\s*\w+\s*\]\s*of\s+Object\.entries\(\s*process\.env\s*\)|\bENV\.each\b|foreach\s*\(\s*\$_ENV\b|\bkeys\s+%ENV\b`)
	execFileRe = refilter.MustCompile(`\b(?:exec|execfile)\s*\(\s*(?:compile\s*\(\s*)?open\s*\(\s*|\brunpy\.run_path\s*\(\s*|\bexecfile\s*\(\s*|\b(?:dofile|loadfile)\s*\(\s*`)
	hexDecRe   = refilter.MustCompile(`\b(?:bytes\.fromhex|bytearray\.fromhex|binascii\.unhexlify|binascii\.a2b_hex|unhexlify)\s*\(\s*|\bpack\s*\(?\s*["']H\*["']\s*,\s*`)
	bufB64Re   = refilter.MustCompile(`Buffer\.from\(\s*(["'])([A-Za-z0-9+/=_-]+)(["'])\s*,\s*["']base64["']\s*\)`)
	backtickRe = refilter.MustCompile("`([^`]+)`")
	// evalBeforeRe: the text before a backtick command ends in eval.
	evalBeforeRe = refilter.MustCompile(`\b(?:eval|instance_eval)\s*\(?\s*$`)
	// shellWriterRe: code that opens a shell for writing its input
	// (Ruby IO.popen("sh", "w"), PHP popen("bash", "w"), Perl open(F,
	// "| sh")).
	shellWriterRe = refilter.MustCompile(`\b(?:IO\.popen|popen)\(\s*['"](?:/bin/)?(?:ba|z|da)?sh['"]\s*,\s*['"][wr]\+?['"]|\bopen\s*\(?\s*(?:my\s+)?\$?\w+\s*,\s*['"]\|\s*(?:/bin/)?(?:ba|z|da)?sh\b`)
	qxRe          = refilter.MustCompile(`\bqx\s*[{(\[/|]([^})\]/|]+)[})\]/|]|%x[({\[]([^)}\]]+)[)}\]]`)
	forkRe        = refilter.MustCompile(`(?s)(?:\bfork\(\s*\)\s*for\s+\w+\s+in\s+(?:iter\(|itertools\.(?:count|repeat|cycle)\()|while\b[^\n]*:?\s*(?:\n\s+)?[^\n]*\b(?:pcntl_)?fork\s*\(|\bfork\s*(?:\(\s*\))?\s*while\b|\bfork\s*\(\s*\)\s*\)\s*\{|for\s*\(\s*;\s*;\s*\)\s*\{?\s*(?:os\.|process\.)?fork)`)
	listStartRe   = refilter.MustCompile(`^\[\s*`)
	fmtFieldRe    = refilter.MustCompile(`\{[^{}]*\}`)
	importURLRe   = refilter.MustCompile(`\bimport\s*\(\s*['"](https?://[^'"\s]+)['"]\s*\)|^\s*import\s+(?:[\w*{}\s,]+\s+from\s+)?['"](https?://[^'"\s]+)['"]`)
	netExecRe     = refilter.MustCompile(`\b(?:exec|eval|execfile|Function|instance_eval)\s*\(\s*(?:[\w.]+\.)?(?:urlopen|get|urlretrieve|request|fetch|open)\s*\(\s*['"]((?:https?|ftp)://[^'"]+)['"]`)
	envKeysLoopRe = refilter.MustCompile(`\bfor\s+\w+\s+in\s+(?:sorted\()?os\.environ\b\s*(?:$|[^.])`)
	envValueRe    = refilter.MustCompile(`os\.environ\s*\[|environ\.get\(|getenv\(|os\.environ\.(?:items|values)\(`)
	homeExprRe    = refilter.MustCompile(`^(?:process\.env\.HOME|os\.getenv\(\s*['"]HOME['"]\s*\)|os\.Getenv\(\s*"HOME"\s*\)|getenv\(\s*['"]HOME['"]\s*\)|ENV\[\s*['"]HOME['"]\s*\]|\$ENV\{HOME\}|os\.environ\[\s*['"](?:HOME|USERPROFILE)['"]\s*\]|os\.getenv\(\s*['"]USERPROFILE['"]\s*\)|os\.homedir\(\)|Dir\.home|Path\.home\(\)|os\.UserHomeDir\(\)|Deno\.env\.get\(\s*['"]HOME['"]\s*\)|System\.getProperty\(\s*"user\.home"\s*\)|path\.expand\(|os\.path\.expanduser\(|require\(['"]os['"]\)\.homedir\(\))`)
	quoteWrapRe   = refilter.MustCompile(`^(?:escapeshellarg|escapeshellcmd|shlex\.quote|pipes\.quote|Shellwords\.escape|shellescape)\(\s*`)
	pyForRe       = refilter.MustCompile(`\bfor\s+([A-Za-z_]\w*)\s+in\s+`)
	rRecursiveRe  = refilter.MustCompile(`recursive\s*=\s*(TRUE|T)\b`)
	getlineRe     = refilter.MustCompile(`\bgetline\s*\w*\s*<\s*"([^"]+)"`)
	deleteCallRe  = refilter.MustCompile(`\.unlink\(|\bunlink\(|\brmtree\(|\bos\.remove\(|\.rmdir\(|\bos\.unlink\(|\b(?:unlink|rmdir)\s+\$`)
	// dirWalkRe: a directory walk whose root is the next argument: PHP's
	// RecursiveDirectoryIterator, Ruby's Find.find.
	dirWalkRe = refilter.MustCompile(`\bnew\s+RecursiveDirectoryIterator\(\s*|\bFind\.find\(\s*`)
	// perlFindRe: Perl's File::Find, find(sub {...}, ROOT) or
	// finddepth(...): the root follows the sub's closing brace.
	perlFindRe = refilter.MustCompile(`\bfind(?:depth)?\s*\(\s*sub\s*\{`)
	walkRe     = refilter.MustCompile(`((?:pathlib\.)?Path\.home\(\)|\bPath\([^()]*\)|\b[A-Za-z_]\w*)\.(?:(?:rglob|glob)\(\s*['"](?:\*|\*\*|\*\*/\*)['"]\s*\)|iterdir\(\s*\))`)
	osWalkRe   = refilter.MustCompile(`\bos\.walk\(\s*`)
	// walkNameTestRe: a test of a walked file's name; group 1 is a
	// negation, group 2 the method ("" for ==), group 3 the text.
	walkNameTestRe  = refilter.MustCompile(`(\bnot\s+)?\b\w+\s*(?:\.(startswith|endswith)\(\s*|==\s*)['"]([^'"/*]+)['"]`)
	dbNameRe        = refilter.MustCompile(`(?i)\b(?:dbname|database|db)\s*=\s*['"]?([A-Za-z0-9_.-]+)`)
	pdoSqliteRe     = refilter.MustCompile(`new PDO\(\s*['"]sqlite:([^'"]+)['"]|['"]dbi:SQLite:(?:dbname=)?([^'";]+)`)
	sqlExecRe       = refilter.MustCompile(`(?:\.|->)(?:execute|executescript|executemany|exec|query|raw|sql)\(\s*|->do\(\s*|\bdb(?:Execute|SendQuery|SendStatement|GetQuery)\(\s*\w+\s*,\s*`)
	sqlWipeRe       = refilter.MustCompile(`(?i)\b(drop\s+(database|table|schema|collection)|truncate\s|delete\s+from\s)`)
	dbEnvURLRe      = refilter.MustCompile(`(?:create_engine|connect|create_async_engine|MongoClient|from_url|createClient)\(\s*(?:os\.environ\[\s*|os\.environ\.get\(\s*|os\.getenv\(\s*)['"]([A-Za-z_][A-Za-z0-9_]*)['"]|(?:connect|createClient|createPool|Pool|Client)\(\s*\{?\s*(?:url|connectionString|uri)\s*:\s*process\.env\.([A-Za-z_][A-Za-z0-9_]*)`)
	dbHostRe        = refilter.MustCompile(`(?i)\b(?:host|server)\s*(?:=|:(?:\s|['"]))\s*['"]?([A-Za-z0-9_.-]+)|(?:postgres(?:ql)?|mysql|mariadb)(?:\+\w+)?://(?:[^@/\s'"]*@)?([A-Za-z0-9_.-]+)`)
	fileWriteRe     = refilter.MustCompile(`^[^\n]*?\)\s*\.write\(\s*|^(?s:.{0,200}?)\b\w+:write\(\s*|^(?s:.{0,300}?)\b\w+\.WriteString\(\s*|^(?s:.{0,200}?)\bas\s+\w+\s*:\s*\n?\s*(?:\w+\.write|print)\(\s*|^[^\n]*?\)\s*(?:\{|do)\s*\|\w+\|\s*\w+\.(?:puts|write|print)\s*\(?\s*`)
	rubyBareRe      = refilter.MustCompile(`(?m)(?:^|[;{]|\bdo\b)\s*(rm_rf|rm_r|sh|system|exec)(?:\s+|\s*\(\s*)`)
	rustCmdRe       = refilter.MustCompile(`Command::new\(\s*"([^"]+)"\s*\)((?:\s*\.args?\(\s*(?:\[[^\]]*\]|"(?:[^"\\]|\\.)*")\s*\))*)`)
	rustArgRe       = refilter.MustCompile(`\.args?\(\s*(?:(\[[^\]]*\])|"((?:[^"\\]|\\.)*)")\s*\)`)
	perlOpenBareRe  = refilter.MustCompile(`\bopen\s+(?:my\s+)?\$?\w+\s*,\s*(?:['"][<+]?(?::\w+)?['"]\s*,\s*)?`)
	awkCmdGetlineRe = refilter.MustCompile(`"([^"]+)"\s*\|\s*getline`)
	awkPrintPipeRe  = refilter.MustCompile(`\bprint(?:f)?\s*("(?:[^"\\]|\\.)*")?[^|;}\n]*\|\s*"([^"]+)"`)
	authHeaderRe    = refilter.MustCompile(`(?i)authorization|headers|api[-_]?key['"]?\s*:|x-api-key|bearer|auth\s*=`)
	netCallRe       = refilter.MustCompile(`\b(?:urlopen|urllib\.request\.urlopen|requests\.(?:get|post|put)|httpx\.(?:get|post|put)|fetch|axios\.(?:get|post|put))\s*\(`)
	truncateRe      = refilter.MustCompile(`\b(?:os\.)?truncate\s*\(\s*`)
	ormDeleteAllRe  = refilter.MustCompile(`\b([A-Z]\w*)\.objects\.(?:all\(\)|filter\(\s*\))\.delete\(\)`)
	netEvalRe       = refilter.MustCompile(`\beval\s*\(\s*parse\s*\(\s*text\s*=\s*readLines\s*\(\s*(?:url\s*\(\s*)?["']((?:https?|ftp)://[^"']+)["']|\bevaluate\s*\(\s*new\s+URL\s*\(\s*["']((?:https?|ftp)://[^"']+)["']|\b(?:source|include|sys\.source)\s*\(\s*(?:download\s*\(\s*)?["']((?:https?|ftp)://[^"']+)["']`)
	writeCallRe     = refilter.MustCompile(`\b(?:fs\.)?(?:writeFileSync|appendFileSync|writeFile|appendFile)\s*\(\s*|\bFile\.write\s*\(\s*|\bIO\.write\s*\(\s*|\bfile_put_contents\s*\(\s*`)
	homePathRe      = refilter.MustCompile(`\b(?:Path\.home\(\)|os\.homedir\(\))`)
	// Environment variables read by code: os.environ["X"],
	// os.environ.get("X"), os.getenv("X"), process.env.X, ENV["X"],
	// $ENV{X}, getenv("X"), System.getenv("X").
	envRefRe = refilter.MustCompile(`\b(?:os\.environ\s*\[\s*|os\.environ\.get\(\s*|os\.getenv\(\s*|os\.Getenv\(\s*|Sys\.getenv\(\s*|Deno\.env\.get\(\s*|System\.getenv\(\s*|Environment\.GetEnvironmentVariable\(\s*|getenv\(\s*|ENV\s*\[\s*|ENV\.fetch\(\s*)['"]([A-Za-z_][A-Za-z0-9_]*)['"]|\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]*)|\bprocess\.env\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]|\$ENV\{\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?\s*\}|(?:\bstd::)?\benv::var(?:_os)?\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\)(?:\.unwrap\(\)|\?|\.expect\([^)]*\))?`)
	// Code that evaluates its own standard input:
	// exec(sys.stdin.read()), eval(fs.readFileSync(0)), eval(STDIN.read).
	// stdinEventRe: Node code collecting its standard input by events
	// and evaluating what it collected (new Function(s)(), eval(s),
	// vm.runInThisContext(s)).
	stdinEventRe = refilter.MustCompile(`(?s)process\.stdin\b.{0,300}?(?:new\s+Function\s*\(|\beval\s*\(|runInThisContext\s*\(|runInNewContext\s*\()`)
	stdinEvalRe  = refilter.MustCompile(`\b(?:exec|eval|instance_eval|Function)\s*\(?\s*(?:sys\.stdin\.read\(\)|sys\.stdin|open\(\s*0|open\(\s*['"]/dev/stdin|(?:require\(\s*['"]fs['"]\s*\)|fs)\.readFileSync\(\s*(?:0|['"]/dev/stdin['"])|STDIN\.read|\$stdin\.read|<STDIN>|file_get_contents\(\s*['"]php://stdin)`)
	// Code that writes to its output.
	printCallRe = refilter.MustCompile(`\b(?:print|println|printf|puts|pp|say|echo|fmt\.(?:Print|Println|Printf|Fprintf|Fprintln)|Console\.(?:Write|WriteLine)|System\.out\.(?:print|println|printf)|console\.(?:log|error|info|dir|warn|debug)|sys\.stdout\.write|process\.stdout\.write|STDOUT\.write|var_dump|print_r|pprint|logging\.(?:info|warning|error|debug|critical)|logger\.(?:info|warning|warn|error|debug))\b|\b(?:cat|message|writeLines)\s*\(|(?:^|[;{\n])\s*p\s+`)
	// A socket connected out with the process's stdio or a shell tied
	// to it: a reverse shell.
	revShellRe = refilter.MustCompile(`(?s)/inet/tcp/\d+/[^"/]+/\d+.{0,300}\|&|\bnet\.Dial(?:Timeout)?\(.{0,600}(?:/bin/(?:ba|z)?sh|exec\.Command\(\s*"(?:ba|z)?sh")|socket.{0,300}connect.{0,400}(?:dup2|pty\.spawn|/bin/(?:ba|z)?sh|cmd\.exe|exec\s*\(|spawn\s*\()|(?:\bnet\.connect\(|require\(\s*['"]net['"]\s*\)\.connect\(|\bnew\s+net\.Socket\(|IO::Socket::INET|TCPSocket\.(?:new|open)|\bfsockopen\().{0,400}(?:%x[({]|\bIO\.popen\(|/bin/(?:ba|z)?sh|\b(?:spawn|exec|popen|proc_open|system)\s*\(\s*['"](?:ba|z)?sh\b|cmd\.exe|open\s*\(\s*STDIN)|\bspawn\(\s*['"](?:/bin/)?(?:ba|z)?sh['"].{0,400}(?:\bnet\.connect\(|\bnew\s+net\.Socket\(|\.connect\(\s*\d+\s*,)`)
	// Code that fetches from the network (netFetchRe, with a URL
	// literal) and also evaluates code at run time (evalCallRe) runs what
	// it fetched, whatever the nesting: eval(file_get_contents(URL)),
	// fetch(URL).then(r => r.text()).then(eval), eval(Net::HTTP.get(URI(URL))).
	netFetchRe = refilter.MustCompile(`\b(?:get|getprint|getstore|head|copy)\s*\(\s*['"](?:https?|ftp)://|\b(?:urlopen|urlretrieve|requests\.get|httpx\.get|fetch|https?\.get|file_get_contents|fopen|readfile|Net::HTTP|URI\.open|open-uri|LWP::Simple|HTTP::Tiny|getstore|axios|DownloadString|DownloadFile|Invoke-WebRequest|Invoke-RestMethod|WebClient|wget\.download|socket\.create_connection)\b`)
	evalCallRe = refilter.MustCompile(`(?i:\b(?:exec|eval|execfile|Function|instance_eval|runInThisContext|runInNewContext|loadstring|Invoke-Expression|iex)\s*[\s(]|\.then\(\s*eval\s*\)|\b(?:include|require)(?:_once)?\s*\(?\s*['"](?:https?|ftp)://)`)
	urlLitRe   = refilter.MustCompile(`['"]((?:https?|ftp)://[^'"\s]+)['"]`)
	// urlretrieve("URL", "PATH") / wget.download(URL, out=PATH) /
	// file_put_contents(PATH, ...) save a download to a file.
	retrieveRe = refilter.MustCompile(`\b(?:urlretrieve|wget\.download|copy)\s*\(\s*`)
	putFileRe  = refilter.MustCompile(`\bfile_put_contents\s*\(\s*`)
	// PowerShell's pipe-to-shell: Invoke-Expression of a download, in
	// either order ("IEX (New-Object Net.WebClient).DownloadString(URL)",
	// "iwr URL | iex").
	// The URL may be a variable ($u, $env:BOOTSTRAP_URL): what it names
	// is still fetched and run.
	psNetRe = refilter.MustCompile(`(?i)\[scriptblock\]::create\(.{0,200}?\b(?:downloadstring|invoke-webrequest|invoke-restmethod|iwr|irm|net\.webclient)\b.{0,160}?((?:https?|ftp)://[^'"\s)]+|\$[a-z_][\w:]*)|\b(?:iex|invoke-expression)\b.{0,200}?\b(?:downloadstring|downloaddata|invoke-webrequest|invoke-restmethod|iwr|irm|net\.webclient|wget|curl|start-bitstransfer)\b.{0,160}?((?:https?|ftp)://[^'"\s)]+|\$[a-z_][\w:]*)|\b(?:downloadstring|invoke-webrequest|invoke-restmethod|iwr|irm|wget|curl)\b.{0,200}?((?:https?|ftp)://[^'"\s)]+|\$[a-z_][\w:]*).{0,200}?\|\s*(?:&\s*)?(?:iex|invoke-expression)\b` +
		// The cmdlets take a bare host too (irm get.scoop.sh | iex).
		`|\b(?:iex|invoke-expression)\b.{0,200}?\b(?:invoke-webrequest|invoke-restmethod|iwr|irm)\s+(?:-uri\s+)?['"]?((?:[a-z0-9-]+\.)+[a-z]{2,}(?:/[^'"\s)]*)?)|\b(?:invoke-webrequest|invoke-restmethod|iwr|irm)\s+(?:-uri\s+)?['"]?((?:[a-z0-9-]+\.)+[a-z]{2,}(?:/[^'"\s)|]*)?)['"]?\s*\|\s*(?:&\s*)?(?:iex|invoke-expression)\b`)
)

// psNetURL returns the URL PowerShell code downloads and evaluates, or "".
func psNetURL(code string) string {
	if m := psNetRe.FindStringSubmatch(code); m != nil {
		u := strings.Join(m[1:], "")
		if !strings.Contains(u, "://") && !strings.HasPrefix(u, "$") {
			u = "https://" + u
		}
		return u
	}
	return psDownloadRun(code)
}

var (
	psOutFileRe = refilter.MustCompile(`(?i)\b(?:invoke-webrequest|iwr|curl|wget|invoke-restmethod|irm)\b[^;|\n]*?((?:https?|ftp)://[^'"\s;]+)[^;|\n]*?-outfile\s+['"]?([^'"\s;]+)|downloadfile\(\s*['"]((?:https?|ftp)://[^'"]+)['"]\s*,\s*['"]([^'"]+)['"]`)
)

// psDownloadRun finds PowerShell code that saves a download to a file and
// then runs that file (& PATH, . PATH, Start-Process PATH, -File PATH).
func psDownloadRun(code string) string {
	m := psOutFileRe.FindStringSubmatch(code)
	if m == nil {
		return ""
	}
	u, p := m[1]+m[3], m[2]+m[4]
	rest := code[strings.Index(code, m[0])+len(m[0]):]
	lr := strings.ToLower(rest)
	lp := strings.ToLower(p)
	for _, pre := range []string{"& ", "&", ". ", "start-process ", "-file ", "saps ", "iex (gc ", "invoke-item "} {
		if strings.Contains(lr, pre+lp) || strings.Contains(lr, pre+"'"+lp) || strings.Contains(lr, pre+`"`+lp) {
			return u
		}
	}
	// ".\setup.ps1" (or "./setup.ps1") as a statement: the saved file run.
	if b := path.Base(strings.ReplaceAll(lp, `\`, "/")); b != "" {
		for _, pre := range []string{`.\`, "./"} {
			if i := strings.Index(lr, pre+b); i >= 0 && (i == 0 || strings.ContainsRune(" ;&|(\n", rune(lr[i-1]))) {
				return u
			}
		}
	}
	// A script host or loader given the file: "cscript //nologo F",
	// "rundll32 F,Entry", "regsvr32 /s F".
	for _, h := range []string{"cscript", "wscript", "mshta", "rundll32", "regsvr32"} {
		for i := strings.Index(lr, h); i >= 0; {
			if args := head(lr[i+len(h):], 200); strings.Contains(strings.SplitN(args, ";", 2)[0], lp) {
				return u
			}
			j := strings.Index(lr[i+1:], h)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return ""
}

var psPrintedRe = refilter.MustCompile(`(?i)\b(?:write-(?:host|output|warning|verbose|information|error|debug)|echo)\s+(?:'[^']*'|"[^"]*")`)

// psMaskPrinted empties the strings PowerShell code only prints
// ("Write-Host 'never run iwr URL | iex'"): text shown to a reader is not
// code, unless the printed text is itself piped to Invoke-Expression.
func psMaskPrinted(code string) string {
	if !strings.Contains(strings.ToLower(code), "write-") && !strings.Contains(strings.ToLower(code), "echo") {
		return code
	}
	var b strings.Builder
	last := 0
	for _, m := range psPrintedRe.FindAllStringIndex(code, -1) {
		rest := strings.ToLower(strings.TrimLeft(code[m[1]:], " \t"))
		if strings.HasPrefix(rest, "|") {
			rest = strings.TrimLeft(rest[1:], " \t")
			if strings.HasPrefix(rest, "iex") || strings.HasPrefix(rest, "invoke-expression") {
				continue
			}
		}
		word := code[m[0]:m[1]]
		q := strings.IndexAny(word, `'"`)
		b.WriteString(code[last:m[0]])
		b.WriteString(word[:q+1] + word[len(word)-1:])
		last = m[1]
	}
	b.WriteString(code[last:])
	return b.String()
}

// psNetExec records PowerShell code that evaluates a download as the
// pipe-to-shell it is.
func (w *walker) psNetExec(code string, c ctx) {
	if u := psNetURL(psMaskPrinted(code)); u != "" {
		w.codeItem(codeItem{shell: "curl -s " + quote(u) + " | iex", via: "powershell iex(network)"}, c)
	}
}

// extractCode finds what interpreter code runs in a shell or touches on
// disk. It is a scanner, not an interpreter: literal strings reaching
// system()/subprocess/exec/backticks, simple NAME = "..." assignments
// used as arguments, base64 literals that are decoded and executed.
func extractCode(lang, code string) []codeItem {
	return extractDepth(lang, code, 0, nil)
}

// extractScript is extractCode for a script file run with arguments
// ("python3 prune.py /home/dev /etc"): loops over sys.argv and the like
// take those values.
func extractScript(lang, code string, argv []string) []codeItem {
	return extractDepth(lang, code, 0, argv)
}

func extractDepth(lang, code string, depth int, argv []string) []codeItem {
	if depth > 3 || strings.TrimSpace(code) == "" {
		return nil
	}
	if len(code) > maxSrcBytes {
		code = code[:maxSrcBytes]
	}
	via := lang
	if lang == "clojure" {
		code, lang = clojureAsJava(code), "java"
	}
	if lang == "awk" {
		code = awkConcat(code)
	}
	if lang == "python" {
		code = StripPythonComments(code)
	}
	if lang == "java" {
		// Fully qualified names (java.nio.file.Files.readString(
		// java.nio.file.Path.of(...)), as jshell scripts write them
		// without imports) read as the short ones.
		code = javaQualRe.ReplaceAllString(code, "")
		code = scalaProcesses(code)
	}
	if strings.Contains(code, "__import__(") {
		code = importCalls(code)
	}
	if strings.Contains(code, "getattr(") {
		code = getattrCalls(code)
	}
	if lang == "python" {
		code = funcAliases(code)
	}
	if lang == "ruby" || lang == "php" {
		code = indirectCalls(code)
	}
	if lang == "node" {
		code = nodeFsNames(code)
	}
	vars := map[string]string{}
	if len(argv) > 0 {
		setListVar(vars, argvKey, argv)
	}
	for _, m := range pyAssignRe.FindAllStringSubmatchIndex(code, -1) {
		if s, _, ok := readStrExpr(code[m[1]:], vars); ok {
			vars[code[m[2]:m[3]]] = s
		} else if p, _, ok := readPathSpecial(code[m[1]:], vars); ok {
			// rc = os.path.expanduser("~/.bashrc"), home = Path.home()
			vars[code[m[2]:m[3]]] = p
		} else if cmd, ok := outputCmd(code[m[1]:], vars); ok {
			vars[cmdKey+code[m[2]:m[3]]] = cmd
		} else if vals, _, ok := readSeq(code[m[1]:], vars); ok {
			// args = ["git", "push", "-f"], dirs = [d[::-1] for d in (...)]
			if len(vals) == 1 {
				vars[code[m[2]:m[3]]] = vals[0]
			} else {
				setListVar(vars, code[m[2]:m[3]], vals)
			}
		} else if line, _, _ := strings.Cut(code[m[1]:], "\n"); strings.Contains(line, " else ") {
			// root = A if COND else B: when A cannot be read, B is what
			// the name may hold (Path.cwd() when __file__ is unset).
			_, alt, _ := strings.Cut(line, " else ")
			if s, _, ok := readStrExpr(alt, vars); ok {
				vars[code[m[2]:m[3]]] = s
			} else if p, _, ok := readPathSpecial(alt, vars); ok {
				vars[code[m[2]:m[3]]] = p
			}
		}
	}
	if lang == "php" {
		code = phpVarCalls(code, vars)
	}
	if lang == "ruby" || lang == "perl" {
		globLoopVars(code, vars)
	}
	code = pathMethods(code, vars)
	spans := literalSpans(lang, code)
	nets := netVars(code)
	var out []codeItem
	add := func(it codeItem) {
		if len(out) < 64 {
			it.pos = len(code) + len(out)
			if it.text != "" {
				if i := strings.Index(code, it.text); i >= 0 {
					it.pos = i
				}
			}
			out = append(out, it)
		}
	}
	if lang == "awk" {
		// print EXPR | "sh": the printed line is the shell's input;
		// "CMD" | getline runs CMD.
		for _, m := range awkPipeRe.FindAllStringSubmatchIndex(code, 8) {
			if m[2] >= 0 {
				if s, _, ok := readStrExpr(code[m[2]:m[3]], vars); ok {
					add(codeItem{shell: s, via: via + " print | sh", text: clip(code[m[0]:], 200)})
				}
			} else if s, _, ok := readStrExpr(code[m[4]:m[5]], vars); ok {
				add(codeItem{shell: s, via: via + " getline", text: clip(code[m[0]:], 200)})
				if f, _, _ := strings.Cut(strings.TrimSpace(s), " "); downloaders[f] && strings.Contains(code, "system(") {
					// ("curl URL" | getline l) then system(l): what the
					// network sent is run, line by line.
					add(codeItem{shell: s + " | sh", via: via + " getline+system", text: clip(code[m[0]:], 200)})
				}
			}
		}
	}
	if lang == "python" {
		// IPython: "!cmd" lines, "x = !cmd", %sx/%system, and %%bash or
		// %%sh cells run in a shell.
		for _, it := range ipythonShell(code) {
			it.via = via + " " + it.via
			add(it)
		}
	}
	calls := shellCallRe.FindAllStringIndex(code, -1)
	scanCalls := func(vars map[string]string, calls [][]int) {
		for _, m := range calls {
			if inSpans(spans, m[0]) || m[0] >= 2 && code[m[0]-2:m[0]] == "->" {
				// ->exec( is a method ($pdo->exec), not PHP's exec().
				continue
			}
			rest := code[m[1]:]
			callee := strings.TrimSpace(code[m[0]:m[1]])
			arg := ""
			if strings.HasSuffix(callee, "(") {
				arg = callArg(rest)
			} else if lang == "perl" || lang == "ruby" {
				// Perl's and Ruby's calls without parentheses: the
				// statement is the argument ("exec join '', map {...}").
				arg, _, _ = strings.Cut(rest, ";")
				arg, _, _ = strings.Cut(arg, "\n")
			}
			if arg != "" && decoderRe.MatchString(arg) {
				// os.system(codecs.decode('...', 'rot13')), exec(''.join(map(chr,
				// [...]))), system(pack("H*", "...")): whatever the text
				// decodes to, a shell or interpreter runs a payload that was
				// kept unreadable on purpose.
				add(codeItem{argv: []string{lang, "encoded-exec"}, via: via + " " + strings.TrimRight(callee, "( ") + "(decoded)",
					notes: []string{"encoded-exec"}, text: clip(code[m[0]:], 200)})
			}
			if strings.HasSuffix(callee, "(") {
				// os.system(urlopen(URL).read().decode()), subprocess.run(
				// ["bash"], input=requests.get(URL).content), os.system(script)
				// after script = httpx.get(URL).text: what the network returned
				// is run by a shell, in-process pipe-to-shell.
				arg := callArg(rest)
				codeCall := strings.HasPrefix(callee, "eval") || strings.HasPrefix(callee, "exec") && lang == "python"
				if netReadRe.MatchString(arg) || netRun(arg, nets) {
					u := "http://unknown.invalid/"
					if m := urlLitRe.FindStringSubmatch(arg); m != nil {
						u = m[1]
					} else if m := urlLitRe.FindStringSubmatch(code); m != nil {
						u = m[1]
					}
					prog := "sh"
					if codeCall {
						prog = lang
					}
					add(codeItem{shell: "curl -s " + quote(u) + " | " + prog, via: via + " " + strings.TrimRight(callee, "( ") + "(network)", text: clip(code[m[0]:], 200)})
				}
			}
			argv, ok := readList(rest, vars)
			if !ok {
				if id := identAt(strings.TrimLeft(rest, " \t")); id != "" {
					argv, ok = listVar(vars, id)
				}
			}
			if ok {
				// spawn("rm", ["-rf", "/"]) is handled below; a list is argv.
				name, args := strings.TrimRight(callee, "( "), callArg(rest)
				it := codeItem{argv: argv, via: via + " " + name, text: clip(code[m[0]:], 200),
					assigned: lang == "python" && capturedUnshown(code, m[0], name, args)}
				if k := cwdKwRe.FindStringIndex(args); k != nil {
					// subprocess.run([...], cwd="infra/ephemeral/x"):
					// where the command runs.
					if d, _, ok := readPathExpr(args[k[1]:], vars); ok && looksLikePath(d) {
						it.dir = d
					}
				}
				add(it)
				continue
			}
			s, n, ok := readStrExpr(rest, vars)
			if !ok && lang == "python" && strings.HasPrefix(callee, "exec") {
				// exec(compile(SRC, "<s>", "exec")) runs SRC.
				if src, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t"), "compile("); ok {
					if code, _, ok := readStrExpr(strings.TrimLeft(src, " \t"), vars); ok {
						for _, it := range extractDepth("python", code, depth+1, nil) {
							add(it)
						}
					}
				}
				continue
			}
			if !ok {
				continue
			}
			// spawn("rm", ["-rf","/"]) / execFile("rm", [...]) / os.execvp("rm", [...])
			after := strings.TrimLeft(rest[n:], " \t")
			if strings.HasPrefix(after, ",") {
				if argv, ok := readList(strings.TrimLeft(after[1:], " \t"), vars); ok && !strings.Contains(s, " ") {
					if len(argv) > 0 && argv[0] == s {
						argv = argv[1:]
					}
					add(codeItem{argv: append([]string{s}, argv...), via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
					continue
				}
			}
			// Perl/Ruby list form without brackets: system "rm", "-rf", "/".
			if strings.HasPrefix(after, ",") && !strings.Contains(s, " ") {
				argv := []string{s}
				rest2 := after
				for strings.HasPrefix(rest2, ",") {
					a, k, ok := readPathExpr(strings.TrimLeft(rest2[1:], " \t"), vars)
					if !ok {
						break
					}
					argv = append(argv, a)
					rest2 = strings.TrimLeft(strings.TrimLeft(rest2[1:], " \t")[k:], " \t")
				}
				if len(argv) > 1 {
					add(codeItem{argv: argv, via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
					continue
				}
			}
			// Plain exec()/run() in Python is code, not a shell line, unless
			// subprocess-like; "exec" of a decoded string is handled below.
			if lang == "python" && strings.HasPrefix(callee, "exec") && !strings.HasSuffix(code[max(0, m[0]-3):m[0]], "os.") {
				for _, it := range extractDepth("python", s, depth+1, nil) {
					add(it)
				}
				continue
			}
			add(codeItem{shell: s, via: via + " " + strings.TrimRight(callee, "( "), text: clip(code[m[0]:], 200)})
		}
	}
	scanCalls(vars, calls)
	loops := pyLoopVars(code, vars)
	for _, lv := range loops {
		// for svc in ("falco", "auditd"): subprocess.run([..., svc]): the
		// call runs once per value. Only the calls in reach of the loop
		// that name its variable are read again, which bounds the work.
		var inLoop [][]int
		for _, m := range calls {
			if m[0] > lv.pos && m[0] < lv.pos+2000 && len(inLoop) < 16 && mentionsAny(callArg(code[m[1]:]), map[string]bool{lv.name: true}) {
				inLoop = append(inLoop, m)
			}
		}
		if len(inLoop) == 0 {
			continue
		}
		seen := len(out)
		v2 := maps.Clone(vars)
		for _, val := range lv.vals {
			v2[lv.name] = val
			scanCalls(v2, inLoop)
		}
		for _, list := range lv.lists {
			setListVar(v2, lv.name, list)
			scanCalls(v2, inLoop)
		}
		out = append(out[:seen], dedupeItems(out[:seen], out[seen:])...)
	}
	if lang == "perl" || lang == "ruby" || lang == "php" || lang == "sh" {
		for _, m := range backtickRe.FindAllStringSubmatchIndex(code, -1) {
			cmd := code[m[2]:m[3]]
			if lang == "ruby" && strings.Contains(cmd, "#{") {
				cmd = rubyInterp(cmd, vars) // `rm -rf #{Dir.home}/src`
			}
			add(codeItem{shell: cmd, via: via + " backticks"})
			if lang != "sh" && evalBeforeRe.MatchString(code[max(0, m[0]-40):m[0]]) {
				// eval `curl -s URL`: the command's output is run as code.
				add(codeItem{shell: cmd + " | " + lang, via: via + " eval(backticks)"})
			}
		}
		for _, m := range qxRe.FindAllStringSubmatch(code, -1) {
			if lang == "ruby" && m[2] != "" {
				continue // %x(...), read below with its brackets nesting
			}
			add(codeItem{shell: m[1] + m[2], via: via + " qx"})
		}
		for i := 0; lang == "ruby" && i < len(code); {
			k := strings.Index(code[i:], "%x")
			if k < 0 {
				break
			}
			i += k + 2
			// %x(rm -rf #{Dir.home}/*): the interpolation's braces nest.
			if body, _, ok := readPercentLit("%Q" + code[i:]); ok {
				add(codeItem{shell: rubyInterp(body, vars), via: via + " qx"})
			}
		}
	}
	// exec(open(PATH).read()), runpy.run_path(PATH): the file is run as
	// code, like "python3 PATH" (a file downloaded earlier included).
	for _, m := range execFileRe.FindAllStringIndex(code, -1) {
		if p, _, ok := readPathExpr(code[m[1]:], vars); ok && looksLikePath(p) {
			add(codeItem{argv: []string{lang, p}, via: via + " exec(file)", text: clip(code[m[0]:], 200)})
		}
	}
	// The path-taking calls: deletes and reads.
	scanPaths := func(vars map[string]string) {
		for _, m := range rmtreeRe.FindAllStringIndex(code, -1) {
			if inSpans(spans, m[0]) {
				continue // named in a string: "Never run dbutils.fs.rm('/mnt', True)"
			}
			if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
				add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
			} else if arg := strings.TrimLeft(code[m[1]:], " \t"); vars[cmdKey+identAt(arg)] != "" {
				// root = check_output(["git", "rev-parse", "--show-toplevel"])
				// then rmtree(root), or rmtree(root + "/htmlcov"): the
				// shell's rm -rf "$(...)" with what is appended.
				id := identAt(arg)
				suffix := ""
				if sm := strSuffixRe.FindStringSubmatch(arg[len(id):]); sm != nil {
					suffix = sm[2]
				}
				add(codeItem{shell: `rm -rf "$(` + vars[cmdKey+id] + `)"` + quote(suffix), via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
			} else if vals, _, ok := readSeq(code[m[1]:], vars); ok && len(vals) > 0 {
				// FileUtils.rm_rf(["/etc", "/usr"]), rm_rf(%w[a b]): each.
				add(codeItem{argv: append([]string{"rm", "-r", "-f"}, vals...), via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
			}
		}
		if lang == "haskell" {
			for _, m := range hsRmtreeRe.FindAllStringIndex(code, 8) {
				if inSpans(spans, m[0]) {
					continue // named in a string
				}
				if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
					add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " removeDirectoryRecursive", text: clip(code[m[0]:], 200)})
				}
			}
		}
		if lang == "perl" {
			// use File::Path; rmtree "/srv", remove_tree $dir: without
			// parentheses.
			for _, m := range perlRmtreeBareRe.FindAllStringIndex(code, 8) {
				if strings.HasPrefix(code[m[1]:], "(") || strings.HasPrefix(code[m[1]:], "=") {
					continue // rmtree (...) is read above
				}
				if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
					add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " rmtree", text: clip(code[m[0]:], 200)})
				}
			}
			// open F, "</etc/shadow": the two-argument open, its mode
			// written into the path string, without parentheses.
			for _, m := range perlBareOpenRe.FindAllStringIndex(code, 8) {
				if p, _, ok := readStrExpr(code[m[1]:], vars); ok {
					if mode := strings.TrimSpace(p); strings.HasPrefix(mode, ">") || strings.HasPrefix(mode, "|") || strings.HasSuffix(mode, "|") {
						continue // a write, or a pipe (read elsewhere)
					}
					if p = strings.TrimLeft(strings.TrimSpace(p), "<+ "); looksLikePath(p) {
						add(codeItem{argv: []string{"cat", p}, via: via + " open", text: clip(code[m[0]:], 200)})
					}
				}
			}
		}
		// PHP's array_map("unlink", glob(P)) and Ruby's Dir.glob(P).each
		// { |f| FileUtils.rm_rf(f) }: every match of P deleted.
		for _, m := range globDeleteRe.FindAllStringSubmatchIndex(code, 8) {
			if m[2] >= 0 {
				if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
					add(codeItem{argv: []string{"rm", "-f", p}, via: via + " unlink glob", text: clip(code[m[0]:], 200)})
				}
				continue
			}
			if p, n, ok := readPathExpr(code[m[1]:], vars); ok && rubyEachDeleteRe.MatchString(head(code[m[1]+n:], 200)) {
				add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " glob each rm_rf", text: clip(code[m[0]:], 200)})
			}
		}
		for _, m := range deleteRecRe.FindAllStringSubmatchIndex(code, 8) {
			if p, ok := vars[code[m[2]:m[3]]]; ok && (looksLikePath(p) || p == "~") {
				add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " deleteRecursively", text: clip(code[m[0]:], 200)})
			}
		}
		// truncate("$ENV{HOME}/.bash_history", 0), os.truncate(p, 0):
		// the file emptied, as truncate -s 0 would.
		for _, m := range truncateRe.FindAllStringIndex(code, 8) {
			if p, n, ok := readPathExpr(code[m[1]:], vars); ok {
				if rest := strings.TrimLeft(code[m[1]+n:], " \t"); strings.HasPrefix(rest, ",") && strings.HasPrefix(strings.TrimLeft(rest[1:], " \t"), "0") {
					add(codeItem{argv: []string{"truncate", "-s", "0", p}, via: via + " truncate", text: clip(code[m[0]:], 200)})
				}
			}
		}
		for _, m := range removeRe.FindAllStringIndex(code, -1) {
			if inSpans(spans, m[0]) {
				continue
			}
			if p, n, ok := readPathExpr(code[m[1]:], vars); ok {
				if args, _, _ := strings.Cut(code[m[1]+n:], ")"); rRecursiveRe.MatchString(args) {
					// R: unlink("~", recursive = TRUE)
					add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
					continue
				}
				add(codeItem{argv: []string{"rm", "-f", p}, via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
			}
		}
		for _, m := range openRe.FindAllStringIndex(code, -1) {
			rest := code[m[1]:]
			callee := strings.TrimRight(code[m[0]:m[1]], "( \t")
			if lang == "julia" && strings.HasPrefix(rest, "`") {
				// open(`cmd`, "w"): a command, read below.
				continue
			}
			if lang == "perl" && callee == "open" {
				// open(FH, "<", PATH), open(my $fh, '<', PATH).
				if k := perlOpenWriteRe.FindStringSubmatchIndex(rest); k != nil {
					// open(F, ">>", PATH) then print F "...": what the
					// file gets, as a shell redirect would write it.
					if p, n, ok := readPathExpr(rest[k[1]:], vars); ok && looksLikePath(p) {
						appendTo := rest[k[2]:k[3]] == ">>"
						if wm := perlPrintRe.FindStringIndex(rest[k[1]+n:]); wm != nil {
							if body, _, ok := readStrExpr(rest[k[1]+n+wm[1]:], vars); ok {
								add(codeItem{shell: writeShell(p, body, appendTo), via: via + " open", text: clip(code[m[0]:], 200)})
								continue
							}
						}
						add(codeItem{argv: []string{"tee", p}, via: via + " open", text: clip(code[m[0]:], 200)})
					}
					continue
				}
				if k := perlOpenHandleRe.FindStringIndex(rest); k != nil {
					rest = rest[k[1]:]
				}
			}
			if p, n, ok := readPathExpr(rest, vars); ok && (looksLikePath(p) || openedName(callee, p) || envNamed(p)) {
				if usedAsKeyFile(code[:m[0]]) || namesOnly(rest[n:]) || namesOnlyVar(code, m[0], m[1]+n) || keysOfLines(code[:m[0]]) ||
					callee == "dotenv_values" && keyWrapRe.MatchString(code[max(0, m[0]-12):m[0]]) || (callee == "expanduser" || callee == "Path") && pathVarUnread(code, m[0]) {
					// key_filename=expanduser("~/.ssh/id_ed25519"): a
					// library uses the key; dotenv_values(".env").keys():
					// the names only.
					continue
				}
				if (callee == "expanduser" || callee == "Path") && printedPathRe.MatchString(strings.TrimRight(code[:m[0]], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")) && printedOnly(rest[n:]) {
					// print(os.path.expanduser("~/.aws/credentials")): the
					// path is printed, not the file.
					continue
				}
				if (callee == "expanduser" || callee == "Path") && strings.HasSuffix(strings.TrimRight(code[:m[0]], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_. \t"), ".read(") &&
					strings.Contains(code, "onfigParser") && configNamesOnly(code) {
					// c.read(os.path.expanduser("~/.pypirc")) with only
					// c.sections() and c.has_option(...) asked after it:
					// the settings' names, not their values.
					continue
				}
				if (metaOnly(code[:m[0]], rest[n:]) || listedOnly(code, code[:m[0]])) && !strings.Contains(code[m[0]:m[1]], "open") {
					// os.path.exists(os.path.expanduser("~/.aws/credentials")):
					// a path built to test, not to read.
					continue
				}
				mode := strings.TrimLeft(rest[n:], " \t")
				if strings.HasPrefix(mode, ",") && osOpenWriteRe.MatchString(head(mode, 120)) {
					// os.open(p, os.O_WRONLY | os.O_CREAT, 0o600): a file
					// created or written, not read; Go's os.OpenFile(p,
					// os.O_APPEND|os.O_WRONLY, 0644) then f.WriteString("...").
					if wm := fileWriteRe.FindStringIndex(rest[n:]); wm != nil {
						if body, _, ok := readStrExpr(rest[n+wm[1]:], vars); ok {
							add(codeItem{shell: writeShell(p, body, strings.Contains(head(mode, 120), "O_APPEND")), via: via + " " + callee, text: clip(code[m[0]:], 200)})
							continue
						}
					}
					add(codeItem{argv: []string{"tee", p}, via: via + " " + callee, text: clip(code[m[0]:], 200)})
					continue
				}
				if strings.HasPrefix(mode, ",") && callee != "upload_file" && callee != "CURLFile" && callee != "curl_file_create" {
					m2, _, _ := readStrExpr(strings.TrimLeft(mode[1:], " \t"), vars)
					if strings.ContainsAny(m2, "wa") {
						// open(p, "a").write("..."), or "with open(p, 'a') as f:"
						// then f.write("..."): the first literal written is
						// what the file gets, as a shell redirect would.
						if wm := fileWriteRe.FindStringIndex(rest[n:]); wm != nil {
							if body, _, ok := readStrExpr(rest[n+wm[1]:], vars); ok {
								add(codeItem{shell: writeShell(p, body, strings.Contains(m2, "a")), via: via + " open", text: clip(code[m[0]:], 200)})
								continue
							}
						}
						add(codeItem{argv: []string{"tee", p}, via: via + " open", text: clip(code[m[0]:], 200)})
						continue
					}
				}
				add(codeItem{argv: []string{"cat", p}, via: via + " open", text: clip(code[m[0]:], 200), known: envNamed(p)})
			}
		}
	}
	pre := len(out)
	scanPaths(vars)
	mid := len(out)
	// for p in ['~/.aws/credentials', '~/.netrc']: print(open(p).read()):
	// the calls are read once per value of the loop variable.
	for _, lv := range loops {
		seen := len(out)
		v2 := maps.Clone(vars)
		for _, val := range lv.vals {
			v2[lv.name] = val
			scanPaths(v2)
		}
		out = append(out[:seen], dedupeItems(out[:seen], out[seen:])...)
	}
	if len(out) > mid {
		out = dropLoopUnknowns(out, pre, mid)
	}
	if lang == "julia" {
		// Command literals run by run(`...`), read(`...`, String) and
		// the like.
		for _, m := range juliaRunRe.FindAllStringSubmatch(code, 8) {
			add(codeItem{shell: m[1], via: via + " run(cmd)", text: clip(m[0], 200)})
		}
		// rm(path; recursive=true): Julia's rm -rf.
		for _, m := range juliaRmRe.FindAllStringIndex(code, 8) {
			if p, n, ok := readPathExpr(code[m[1]:], vars); ok {
				argv := []string{"rm", "-f", p}
				if args, _, _ := strings.Cut(code[m[1]+n:], ")"); juliaRecRe.MatchString(args) {
					argv = []string{"rm", "-r", "-f", p}
				}
				add(codeItem{argv: argv, via: via + " rm", text: clip(code[m[0]:], 200)})
			}
		}
		// open(`crontab -`, "w") do io; println(io, "..."): the lines
		// printed are the command's input.
		for _, m := range juliaOpenCmdRe.FindAllStringSubmatchIndex(code, 4) {
			target := code[m[2]:m[3]]
			if pm := juliaPrintRe.FindStringIndex(head(code[m[1]:], 400)); pm != nil {
				if body, _, ok := readStrExpr(code[m[1]+pm[1]:], vars); ok {
					add(codeItem{shell: "printf '%s\\n' " + quote(body) + " | " + target, via: via + " open(cmd)", text: clip(code[m[0]:], 200)})
					continue
				}
			}
			add(codeItem{shell: target, via: via + " open(cmd)", text: clip(code[m[0]:], 200)})
		}
	}
	if lang == "node" {
		// Bun's shell and zx: Bun.$`rm -rf ${dir}`, await $`git push`.
		// What the template interpolates becomes the shell's variable
		// of that name (process.env.HOME is $HOME), unknown unless the
		// code or session sets it.
		for _, m := range jsShellTplRe.FindAllStringSubmatch(code, 8) {
			tpl := jsInterpRe.ReplaceAllStringFunc(m[1], func(x string) string {
				e := strings.TrimSpace(x[2 : len(x)-1])
				switch {
				case strings.HasPrefix(e, "process.env."):
					return "${" + strings.TrimPrefix(e, "process.env.") + "}"
				case strings.HasSuffix(e, "homedir()"):
					return "$HOME"
				case vars[e] != "":
					return quote(vars[e])
				}
				return "${__js_" + strings.Map(func(r rune) rune {
					if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
						return r
					}
					return '_'
				}, e) + "}"
			})
			add(codeItem{shell: tpl, via: via + " $`...`", text: clip(m[0], 200)})
		}
		// new Deno.Command("rm", {args: ["-rf", dir]}): the program and
		// its arguments; a shell given -c and what fetch() returned runs
		// the download.
		for _, m := range denoCmdRe.FindAllStringIndex(code, 8) {
			prog, n, ok := readStrExpr(code[m[1]:], vars)
			if !ok {
				continue
			}
			opts := head(code[m[1]+n:], 400)
			am := denoArgsRe.FindStringIndex(opts)
			if am == nil {
				add(codeItem{argv: []string{prog}, via: via + " Deno.Command", text: clip(code[m[0]:], 200)})
				continue
			}
			if list, ok := readList(opts[am[1]-1:], vars); ok {
				add(codeItem{argv: append([]string{prog}, list...), via: via + " Deno.Command", text: clip(code[m[0]:], 200)})
			} else if shells[path.Base(prog)] && mentionsAny(callArg(opts[am[1]:]), nets) {
				u := "http://unknown.invalid/"
				if um := urlLitRe.FindStringSubmatch(code); um != nil {
					u = um[1]
				}
				add(codeItem{shell: "curl -s " + quote(u) + " | " + prog, via: via + " Deno.Command(network)", text: clip(code[m[0]:], 200)})
			}
		}
	}
	if lang == "lua" && luaLoadRe.MatchString(code) {
		// load(io.popen("curl -s URL"):read("*a"))(): what the command
		// prints is run as Lua.
		for _, m := range luaPopenRe.FindAllStringIndex(code, 4) {
			if cmd, _, ok := readStrExpr(code[m[1]:], vars); ok && fetchCmdRe.MatchString(cmd) {
				add(codeItem{shell: cmd + " | lua -", via: via + " load(popen)", text: clip(code[m[0]:], 200)})
			}
		}
	}
	if lang == "perl" {
		// open my $f, "<", PATH / open F, PATH, without parentheses.
		for _, m := range perlOpenBareRe.FindAllStringIndex(code, 8) {
			if p, _, ok := readPathExpr(code[m[1]:], vars); ok && looksLikePath(p) {
				add(codeItem{argv: []string{"cat", p}, via: via + " open", text: clip(code[m[0]:], 200)})
			}
		}
	}
	switch lang {
	case "ruby":
		// Rake's and fastlane's helpers, with or without parentheses:
		// rm_rf Dir.home, sh "cmd", sh("cmd").
		for _, m := range rubyBareRe.FindAllStringSubmatchIndex(code, 8) {
			callee := code[m[2]:m[3]]
			if callee == "sh" || callee == "system" || callee == "exec" {
				if s, _, ok := readStrExpr(code[m[1]:], vars); ok {
					add(codeItem{shell: s, via: via + " " + callee})
				}
				continue
			}
			if p, _, ok := readPathExpr(code[m[1]:], vars); ok {
				add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " " + callee})
			}
		}
	case "rust":
		// Command::new("sh").args(["-c", "..."]) / .arg("-c").arg("...")
		for _, m := range rustCmdRe.FindAllStringSubmatch(code, 8) {
			argv := []string{m[1]}
			for _, a := range rustArgRe.FindAllStringSubmatch(m[2], 16) {
				if a[1] != "" {
					if l, ok := readList(a[1], vars); ok {
						argv = append(argv, l...)
					}
				} else {
					argv = append(argv, unescape(a[2]))
				}
			}
			add(codeItem{argv: argv, via: via + " Command::new"})
		}
	case "tcl":
		for _, it := range tclItems(code) {
			it.via = via + " " + it.via
			add(it)
		}
	case "java":
		for _, it := range javaItems(code, vars) {
			it.via = via + " " + it.via
			add(it)
		}
	case "awk":
		// "curl URL" | getline runs curl; print ... | "sh" feeds a shell.
		var fetched []string
		for _, m := range awkCmdGetlineRe.FindAllStringSubmatch(code, 4) {
			add(codeItem{shell: m[1], via: via + " getline"})
			fetched = append(fetched, m[1])
		}
		for _, m := range awkPrintPipeRe.FindAllStringSubmatch(code, 4) {
			target := m[2]
			switch {
			case len(fetched) > 0 && shells[firstWord(target)]:
				add(codeItem{shell: fetched[0] + " | " + target, via: via + " print|"})
			case m[1] != "":
				add(codeItem{shell: "printf '%s\\n' " + quote(unescape(m[1])) + " | " + target, via: via + " print|"})
			default:
				add(codeItem{shell: target, via: via + " print|"})
			}
		}
	}
	// eval(parse(text = readLines(URL))) in R, evaluate(new URL(U).text)
	// in Groovy: code fetched and run.
	for _, m := range netEvalRe.FindAllStringSubmatch(code, 4) {
		// R's source(URL), Julia's include(download(URL)): run in-process.
		add(codeItem{shell: "curl -s " + quote(m[1]+m[2]+m[3]) + " | " + langProgram(lang), via: via + " eval(network)"})
	}
	// awk's getline < "FILE" reads the file.
	for _, m := range getlineRe.FindAllStringSubmatch(code, 8) {
		add(codeItem{argv: []string{"cat", m[1]}, via: via + " getline", text: clip(m[0], 200)})
	}
	// os.walk(home) with open() of what it yields, kept by a name test
	// (f.startswith("id_"), f == "credentials"): the files so named
	// anywhere under the root are read.
	if strings.Contains(code, "open(") {
		for _, m := range osWalkRe.FindAllStringIndex(code, 2) {
			root, _, ok := readPathExpr(code[m[1]:], vars)
			if !ok || !looksLikePath(root) && root != "~" {
				continue
			}
			for _, t := range walkNameTestRe.FindAllStringSubmatch(code[m[1]:], 4) {
				if t[1] != "" { // "not f.startswith(...)" excludes
					continue
				}
				pat := t[3]
				switch t[2] {
				case "startswith":
					pat += "*"
				case "endswith":
					pat = "*" + pat
				}
				add(codeItem{argv: []string{"cat", strings.TrimSuffix(root, "/") + "/**/" + pat}, via: via + " walk+open", text: clip(code[m[0]:], 200)})
				break
			}
		}
	}
	// Path.home().rglob("*") / os.walk(home) with unlink or rmtree in the
	// same code: a loop deleting what the walk yields.
	if deleteCallRe.MatchString(code) && !walkFilterRe.MatchString(code) {
		for _, m := range walkRe.FindAllStringSubmatchIndex(code, 4) {
			if walkPrinted(code, m[0]) {
				continue
			}
			recv := code[m[2]:m[3]]
			p, ok := vars[recv]
			if !ok {
				p, _, ok = readPathExpr(recv, vars)
			}
			if !ok || !looksLikePath(p) && p != "~" {
				continue
			}
			if walkAgeRe.MatchString(code) {
				// p.stat().st_mtime < cutoff: what is older than an age
				// goes, as find's -mtime test selects it (and a
				// name.startswith("job-") test as its -name); the tree
				// decides whether that is a retention policy.
				argv := []string{"find", p}
				if nm := namePrefixRe.FindStringSubmatch(code); nm != nil {
					argv = append(argv, "-name", nm[1]+"*")
				}
				add(codeItem{argv: append(argv, "-mtime", "+1", "-delete"), via: via + " walk+delete", text: clip(code[m[0]:], 200)})
				continue
			}
			add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " walk+delete", text: clip(code[m[0]:], 200)})
		}
		for _, m := range append(osWalkRe.FindAllStringIndex(code, 4), dirWalkRe.FindAllStringIndex(code, 4)...) {
			if walkPrinted(code, m[0]) {
				continue
			}
			if p, _, ok := readPathExpr(code[m[1]:], vars); ok && (looksLikePath(p) || p == "~") {
				add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " walk+delete", text: clip(code[m[0]:], 200)})
			}
		}
		for _, m := range perlFindRe.FindAllStringIndex(code, 4) {
			end := closeIndex(code[m[1]:], 1, 2000)
			if end < 0 {
				continue
			}
			rest := strings.TrimLeft(code[m[1]+end+1:], " \t\n")
			if !strings.HasPrefix(rest, ",") {
				continue
			}
			if p, _, ok := readPathExpr(strings.TrimLeft(rest[1:], " \t"), vars); ok && (looksLikePath(p) || p == "~") {
				add(codeItem{argv: []string{"rm", "-r", "-f", p}, via: via + " walk+delete", text: clip(code[m[0]:], 200)})
			}
		}
	}
	// Database drivers: the SQL a cursor executes, as the matching client
	// would run it against the host the code connects to.
	if client := dbClient(code); client != "" {
		host := ""
		if hm := dbHostRe.FindStringSubmatch(code); hm != nil {
			host = hm[1] + hm[2]
		} else if em := dbEnvURLRe.FindStringSubmatch(code); em != nil {
			// create_engine(os.environ["PROD_DATABASE_URL"]): the server
			// is whatever that variable names, shown by its name.
			host = "$" + em[1] + em[2]
		}
		argv := []string{client}
		if host != "" {
			argv = append(argv, "-h", host)
		}
		if dm := dbNameRe.FindStringSubmatch(code); dm != nil {
			argv = append(argv, "-d", dm[1])
		}
		if client == "duckdb" {
			// duckdb.connect("scratch.duckdb"): the database file, as
			// the client's first argument (none: in memory).
			if i := strings.Index(code, "duckdb.connect("); i >= 0 {
				if p, _, ok := readPathExpr(code[i+len("duckdb.connect("):], vars); ok {
					argv = append(argv, p)
				} else if strings.HasPrefix(strings.TrimSpace(code[i+len("duckdb.connect("):]), ")") {
					argv = append(argv, ":memory:")
				}
			}
		}
		if client == "sqlite3" {
			// sqlite3.connect(":memory:") or a file: the database is named
			// as the client's first argument.
			if i := strings.Index(code, "sqlite3.connect("); i >= 0 {
				if p, _, ok := readPathExpr(code[i+len("sqlite3.connect("):], vars); ok {
					argv = append(argv, p)
				}
			} else if m := pdoSqliteRe.FindStringSubmatch(code); m != nil {
				// new PDO("sqlite:database/testing.sqlite"), Perl's
				// DBI->connect("dbi:SQLite:dbname=t/test.db")
				argv = append(argv, m[1]+m[2])
			} else if m := sqliteURLRe.FindStringSubmatch(code); m != nil {
				// create_engine("sqlite:///test.db")
				argv = append(argv, m[1])
			}
		}
		for _, m := range sqlExecRe.FindAllStringIndex(code, 8) {
			rest := code[m[1]:]
			// c.execute(text("DROP ...")): SQLAlchemy's wrapper.
			rest = rest[len(sqlTextWrapRe.FindString(head(rest, 64))):]
			sql, _, ok := readStrExpr(rest, vars)
			if !ok || !sqlWipeRe.MatchString(sql) {
				continue
			}
			add(codeItem{argv: append(slices.Clone(argv), "-c", sql), via: via + " " + client + " driver", text: clip(code[m[0]:], 200)})
		}
		if m := sqlaDropAllRe.FindStringIndex(code); m != nil {
			// MetaData.drop_all(): every table the metadata knows.
			add(codeItem{argv: append(slices.Clone(argv), "-c", "DROP TABLE every_reflected_table"), via: via + " SQLAlchemy drop_all", text: clip(code[m[0]:], 200)})
		}
	}
	for _, it := range libraryItems(code, vars) {
		it.via = via + " " + it.via
		add(it)
	}
	if lang == "rust" {
		for _, it := range rustWrites(code, vars) {
			it.via = via + " " + it.via
			add(it)
		}
	}
	for _, it := range gitPythonItems(code, vars) {
		it.via = via + " " + it.via
		add(it)
	}
	if strings.Contains(code, "chmod") {
		walkRoot := ""
		if m := osWalkRe.FindStringIndex(code); m != nil {
			if p, _, ok := readPathExpr(code[m[1]:], vars); ok && (looksLikePath(p) || p == "~") {
				walkRoot = p
			}
		}
		for _, it := range chmodItems(code, vars, walkRoot) {
			it.via = via + " " + it.via
			add(it)
		}
	}
	if len(nets) > 0 && runsVarFile(code) {
		// fh.write(src) of a fetched body, then runpy.run_path(path) or
		// exec(open(path).read()) of a path held in a variable: the code
		// runs what it downloaded, even when the file's name is not known
		// (tempfile.mkstemp). A literal path names some other script.
		for _, m := range writeMethRe.FindAllStringIndex(code, 8) {
			if mentionsAny(callArg(code[m[1]:]), nets) {
				u := "http://unknown.invalid/"
				if um := urlLitRe.FindStringSubmatch(code); um != nil {
					u = um[1]
				}
				add(codeItem{shell: "curl -s " + quote(u) + " | " + langProgram(lang), via: via + " download+exec(file)", text: clip(code[m[0]:], 200)})
				break
			}
		}
	}
	if len(nets) > 0 || netReadRe.MatchString(code) || netFetchRe.MatchString(code) {
		// A shell started to read stdin, fed what the network returned:
		// Popen(["sh"], stdin=PIPE).communicate(payload), res.pipe(
		// spawn("bash").stdin).
		if m := stdinShellRe.FindStringIndex(code); m != nil && stdinFeedRe.MatchString(code) {
			u := "http://unknown.invalid/"
			if um := urlLitRe.FindStringSubmatch(code); um != nil {
				u = um[1]
			}
			add(codeItem{shell: "curl -s " + quote(u) + " | sh", via: via + " stdin(network)", text: clip(code[m[0]:], 200)})
		}
	}
	// fs.copyFileSync(a, b), FileUtils.cp(a, b), Perl's and PHP's
	// copy(a, b): cp a b, so a secret copied somewhere is read, and the
	// copy is known to hold it.
	for _, m := range copyCallRe.FindAllStringIndex(code, 8) {
		if callee := strings.TrimRight(strings.TrimLeft(code[m[0]:m[1]], " \t\n;{(=,"), "( \t"); callee == "copy" && lang != "perl" && lang != "php" {
			continue
		}
		if src, after, ok := pathThenArg(code[m[1]:], vars); ok {
			if dst, _, ok := readPathExpr(after, vars); ok && looksLikePath(dst) {
				add(codeItem{argv: []string{"cp", src, dst}, via: via + " copy", text: clip(code[m[0]:], 200)})
			}
		}
	}
	// fs.writeFileSync(p, "..."), File.write(p, "..."),
	// file_put_contents(p, "...", FILE_APPEND): a write with its content.
	for _, m := range writeCallRe.FindAllStringIndex(code, -1) {
		p, after, ok := pathThenArg(code[m[1]:], vars)
		if !ok {
			continue
		}
		body, k, ok := readStrExpr(after, vars)
		if !ok && publicPathRe.MatchString(p) {
			// A secret from the environment written into a file the site
			// serves or the repository publishes (public/, static/,
			// wwwroot/, README.md): printed for anyone to read.
			arg := callArg(after)
			for _, ix := range envRefRe.FindAllStringSubmatchIndex(arg, 8) {
				if name := envRefName(arg, ix); secretEnvNameRe.MatchString(name) {
					add(codeItem{argv: []string{"printenv", name}, via: via + " public file " + p, text: clip(code[m[0]:], 200)})
				}
			}
		}
		if !ok {
			// fs.writeFileSync(p, txt) after txt = await (await
			// fetch(URL)).text(): the file is a download.
			if first, _, _ := strings.Cut(after, ","); mentionsAny(first, nets) {
				u := "http://unknown.invalid/"
				if um := urlLitRe.FindStringSubmatch(code); um != nil {
					u = um[1]
				}
				add(codeItem{argv: []string{"curl", "-s", "-o", p, u}, via: via + " download", text: clip(code[m[0]:], 200)})
			}
			continue
		}
		appendTo := strings.Contains(strings.ToLower(code[m[0]:m[1]]), "append") || strings.HasPrefix(strings.TrimLeft(after[k:], " \t,"), "FILE_APPEND")
		add(codeItem{shell: writeShell(p, body, appendTo), via: via + " " + strings.TrimRight(code[m[0]:m[1]], "( "), text: clip(code[m[0]:], 200)})
	}
	for _, m := range homePathRe.FindAllStringIndex(code, -1) {
		if p, n, ok := readPathExpr(code[m[0]:], vars); ok && p != "~" {
			if metaOnly(code[:m[0]], code[m[0]+n:]) || listingOnly(code, code[m[0]+n:]) || usedAsKeyFile(code[:m[0]]) || pathVarUnread(code, m[0]) {
				continue
			}
			add(codeItem{argv: []string{"cat", p}, via: via + " path", text: clip(code[m[0]:], 200)})
		}
	}
	// A program that only prints what it decodes shows text; piped to a
	// shell, its output is walked as the command it is (staticOut).
	_, printOnly := printedOutput(code)
	for _, m := range b64Re.FindAllStringIndex(code, -1) {
		if printOnly {
			break
		}
		if s, _, ok := readStrExpr(code[m[1]:], vars); ok {
			if dec, ok := decodeB64(s); ok && printable(dec) {
				for _, it := range extractDepth(lang, dec, depth+1, nil) {
					it.via = via + " b64decode"
					add(it)
				}
				add(codeItem{shell: dec, via: via + " b64decode"})
			}
		}
	}
	// bytes.fromhex("726d20...").decode(), binascii.unhexlify(...): the
	// hex spelling of the same trick.
	for _, m := range hexDecRe.FindAllStringIndex(code, -1) {
		if printOnly {
			break
		}
		if s, _, ok := readStrExpr(code[m[1]:], vars); ok {
			if b, err := hex.DecodeString(strings.Join(strings.Fields(s), "")); err == nil && printable(string(b)) {
				dec := string(b)
				for _, it := range extractDepth(lang, dec, depth+1, nil) {
					it.via = via + " fromhex"
					add(it)
				}
				add(codeItem{shell: dec, via: via + " fromhex"})
			}
		}
	}
	for _, m := range bufB64Re.FindAllStringSubmatch(code, -1) {
		if printOnly {
			break
		}
		if dec, ok := decodeB64(m[2]); ok && printable(dec) {
			add(codeItem{shell: dec, via: via + " base64"})
		}
	}
	// Django's ORM emptying a table: Model.objects.all().delete().
	if lang == "python" {
		for _, m := range ormDeleteAllRe.FindAllStringSubmatch(code, 4) {
			add(codeItem{argv: []string{"django-orm", "delete", m[1], "--all"}, via: via + " orm", text: clip(m[0], 200)})
		}
	}
	// A secret from the environment handed to a network call
	// (urlopen(URL + os.environ['KEY']), fetch(URL, {body:
	// process.env.KEY})): sent as curl would send it.
	for _, m := range netCallRe.FindAllStringIndex(code, 8) {
		arg := callArg(code[m[1]:])
		u := urlLitRe.FindStringSubmatch(arg)
		if u == nil {
			continue
		}
		for _, ix := range envRefRe.FindAllStringSubmatchIndex(arg, 4) {
			// In a header (Authorization, an API-key header) the secret
			// is its own use, as curl -H is.
			if authHeaderRe.MatchString(arg[max(0, ix[0]-60):ix[0]]) {
				continue
			}
			add(codeItem{argv: []string{"curl", "-d", unkOpen + envRefName(arg, ix) + unkClose, u[1]}, via: via + " network(env)", text: clip(code[m[0]:], 200)})
		}
	}
	// eval(gzinflate(base64_decode("..."))), eval(atob("...")): code kept
	// unreadable on purpose and run in-process.
	for _, m := range evalCallRe.FindAllStringIndex(code, 8) {
		if inSpans(spans, m[0]) {
			continue
		}
		arg := ""
		if strings.HasSuffix(code[m[0]:m[1]], "(") {
			arg = callArg(code[m[1]:])
		} else if t := strings.TrimLeft(code[m[1]:], " \t"); lang == "perl" || lang == "ruby" {
			// Perl's and Ruby's eval take their argument without
			// brackets: eval pack("H*", "..."), eval "...".reverse.
			arg = t[:stmtEnd(t)]
		}
		if arg == "" || !decoderRe.MatchString(arg) {
			continue
		}
		add(codeItem{argv: []string{lang, "encoded-exec"}, via: via + " eval(decoded)", notes: []string{"encoded-exec"}, text: clip(code[m[0]:], 200)})
		// What the decoder yields is code in the same language.
		if dec, _, ok := readStrExpr(arg, vars); ok && printable(dec) {
			for _, it := range extractDepth(lang, dec, depth+1, nil) {
				it.via = via + " eval(decoded)"
				add(it)
			}
		}
	}
	// Code fetched and run in-process: exec(urlopen(URL).read()),
	// eval(requests.get(URL).text) — the interpreter's own pipe-to-shell.
	for _, m := range importURLRe.FindAllStringSubmatch(urlText(code), 4) {
		// import('https://...') in Deno, Bun or Node: the module fetched
		// and run.
		add(codeItem{shell: "curl -s " + quote(m[1]+m[2]) + " | " + lang, via: via + " import(network)"})
	}
	for _, m := range netExecRe.FindAllStringSubmatch(code, -1) {
		add(codeItem{shell: "curl -s " + quote(m[1]) + " | " + lang, via: via + " exec(network)"})
	}
	if u := urlLitRe.FindStringSubmatch(code); u != nil && netFetchRe.MatchString(code) {
		if evalCallRe.MatchString(code) {
			add(codeItem{shell: "curl -s " + quote(u[1]) + " | " + lang, via: via + " eval(network)"})
		}
		if shellWriterRe.MatchString(code) {
			// IO.popen("sh", "w") { |sh| sh.write(URI.open(URL).read) }:
			// what was fetched is written into a shell's input.
			add(codeItem{shell: "curl -s " + quote(u[1]) + " | sh", via: via + " shell pipe(network)"})
		}
		for _, m := range retrieveRe.FindAllStringIndex(code, -1) {
			src, n, ok := readStrExpr(code[m[1]:], vars)
			if !ok {
				continue
			}
			rest := strings.TrimLeft(code[m[1]+n:], " \t")
			if !strings.HasPrefix(rest, ",") {
				continue
			}
			rest = strings.TrimPrefix(strings.TrimLeft(rest[1:], " \t"), "out=")
			if dst, _, ok := readPathExpr(rest, vars); ok && looksLikePath(dst) {
				add(codeItem{argv: []string{"curl", "-s", "-o", dst, src}, via: via + " download", text: clip(code[m[0]:], 200)})
			}
		}
		// open(PATH, "wb").write(urlopen(URL).read()) and the like: a
		// file written by code that fetches is a download.
		// File.write(P, URI.open(URL).read), fs.writeFileSync(P, text)
		// after a fetch: writing calls, whatever their mode argument.
		writes := append(putFileRe.FindAllStringIndex(code, -1), writeCallRe.FindAllStringIndex(code, -1)...)
		for _, m := range append(openRe.FindAllStringIndex(code, -1), writes...) {
			p, mode, ok := pathThenArg(code[m[1]:], vars)
			if !ok {
				continue
			}
			if m2, _, _ := readStrExpr(mode, vars); strings.ContainsAny(m2, "wa") || putFileRe.MatchString(code[m[0]:m[1]]) || writeCallRe.MatchString(code[m[0]:m[1]]) {
				add(codeItem{argv: []string{"curl", "-s", "-o", p, u[1]}, via: via + " download", text: clip(code[m[0]:], 200)})
			}
		}
	}
	// A variable read inside a print statement is printed:
	// print(os.environ["OPENAI_API_KEY"]), console.log(process.env.X).
	// (The print statements are found once for the three readings
	// below: each from its call's argument to the end of the line or a
	// ";", with where the call starts.)
	type printStmt struct {
		at   int
		stmt string
	}
	var prints []printStmt
	// (The three readings look for an environment read or a library's
	// secret in the statement: code with neither anywhere has no print
	// statement to collect, and most cells have neither.)
	readsEnvOrSecret := strings.Contains(code, "ENV") || strings.Contains(code, "environ") || strings.Contains(code, "process.env") || strings.Contains(code, "env.") ||
		strings.Contains(code, "getenv(") || strings.Contains(code, "Getenv(") || strings.Contains(code, "$_SERVER") || strings.Contains(code, "env::var") ||
		strings.Contains(code, "GetEnvironmentVariable(") || secretExprRe.MatchString(code)
	if readsEnvOrSecret {
		for _, m := range printCallRe.FindAllStringIndex(code, 16) {
			stmt := code[m[1]:]
			if i := strings.IndexAny(stmt, "\n;"); i >= 0 {
				stmt = stmt[:i]
			}
			prints = append(prints, printStmt{m[0], stmt})
		}
	}
	for _, ps := range prints {
		stmt := ps.stmt
		for _, ix := range envRefRe.FindAllStringSubmatchIndex(stmt, 4) {
			if argOfOtherCall(stmt[:ix[0]]) {
				// print(MongoClient(os.environ["URI"]).list_database_names()):
				// the value goes to a call; what is printed is its result.
				continue
			}
			before := stmt[max(0, ix[0]-8):ix[0]]
			// Past the call's own closing parenthesis: getenv("X") != null.
			after := strings.TrimLeft(stmt[ix[1]:min(len(stmt), ix[1]+10)], ") ]")
			if strings.Contains(before, "if ") || strings.Contains(before, "len(") || strings.Contains(before, "bool(") || strings.Contains(before, "nchar(") || strings.Contains(before, "nzchar(") || strings.Contains(before, "length(") || strings.HasPrefix(after, ".length") || strings.Contains(before, "not ") ||
				strings.Contains(before, "Boolean(") || strings.Contains(before, "!!") || strings.Contains(before, "typeof ") || strings.HasSuffix(strings.TrimSpace(before), "!") ||
				strings.HasPrefix(strings.TrimSpace(after), "else") || strings.HasPrefix(strings.TrimSpace(after), "is ") || strings.HasPrefix(strings.TrimSpace(after), "==") || strings.HasPrefix(strings.TrimSpace(after), "!=") || strings.HasPrefix(strings.TrimSpace(after), "?") ||
				lengthAfterRe.MatchString(stmt[ix[1]:min(len(stmt), ix[1]+24)]) {
				// A test of the variable, not its value.
				continue
			}
			if name := envRefName(stmt, ix); !codeSetsEnv(code, name) {
				add(codeItem{argv: []string{"printenv", name}, via: via + " env", text: clip(code[ps.at:], 200)})
			}
		}
	}
	// A secret a library hands over, printed: a cloud SDK's token or
	// keys, a secret manager's payload, a keyring password, a dotenv
	// file parsed (c.token, get_token(...).token, access_secret_version,
	// Dotenv.parse(".env")).
	for _, ps := range prints {
		stmt := ps.stmt
		if sm := secretExprRe.FindStringIndex(stmt); sm != nil && !lengthAfterRe.MatchString(stmt[sm[1]:]) && !presenceTestRe.MatchString(stmt) && !namesOrExampleRe.MatchString(stmt) {
			add(codeItem{argv: []string{"secret-print", strings.TrimSpace(stmt[sm[0]:sm[1]])}, via: via + " print", text: clip(code[ps.at:], 200)})
			break
		}
	}
	// The whole environment printed: print(os.environ), console.log(
	// process.env), p ENV, a loop printing os.environ.items().
	for _, ps := range prints {
		stmt := ps.stmt
		if wholeEnvRe.MatchString(stmt) {
			add(codeItem{argv: []string{lang, "env-dump"}, via: via + " env", notes: []string{"env-dump"}, text: clip(code[ps.at:], 200)})
			break
		}
	}
	if m := envLoopRe.FindString(code); m != "" && printCallRe.MatchString(code) && (!envKeysLoopRe.MatchString(m) || envValueRe.MatchString(code)) {
		// A loop over os.environ's keys alone prints names (sorted(k for
		// k in os.environ if ...)); it dumps values when the code also
		// reads them.
		add(codeItem{argv: []string{lang, "env-dump"}, via: via + " env", notes: []string{"env-dump"}, text: clip(code, 200)})
	}
	if u := psDownloadRun(code); u != "" {
		add(codeItem{shell: "curl -s " + quote(u) + " | sh", via: via + " download+run"})
	}
	if m := metadataLitRe.FindStringSubmatchIndex(code); m != nil && (netFetchRe.MatchString(code) || codeHTTPRe.MatchString(code)) {
		// http.NewRequest("GET", "http://169.254.169.254/..."): the cloud
		// metadata service, asked from code.
		add(codeItem{argv: []string{"curl", "-s", code[m[2]:m[3]]}, via: via + " metadata", text: clip(code[m[0]:], 200)})
	} else if netFetchRe.MatchString(code) || codeHTTPRe.MatchString(code) {
		// ip = ".".join(["169", "254", "169", "254"]), then a request to
		// f"http://{ip}/...": the address was built, not written.
		var hosts []string
		for _, v := range vars {
			if metadataHosts[strings.TrimSuffix(v, ":80")] {
				hosts = append(hosts, v)
			}
		}
		if len(hosts) > 0 {
			add(codeItem{argv: []string{"curl", "-s", "http://" + slices.Min(hosts) + "/"}, via: via + " metadata", text: clip(code, 200)})
		}
	}
	if m := luaLoadPopenRe.FindStringIndex(code); m != nil {
		// load(io.popen("curl -s URL"):read("*a"))(): what the command
		// prints is run as Lua.
		if cmd, _, ok := readStrExpr(code[m[1]:], vars); ok {
			add(codeItem{shell: cmd + " | lua", via: via + " load(popen)", text: clip(code[m[0]:], 200)})
		}
	}
	if revShellRe.MatchString(code) {
		add(codeItem{argv: []string{"nc", "-e", "/bin/sh", "remote"}, via: via + " reverse-shell", text: clip(code, 200)})
	}
	if lang == "python" {
		for _, it := range pyCallItems(code, vars, depth) {
			add(it)
		}
	}
	if lang == "python" || lang == "node" || lang == "ruby" {
		for _, it := range sdkDeleteItems(code) {
			it.via = via + " " + it.via
			add(it)
		}
	}
	if forkRe.MatchString(code) || selfSpawn(code) {
		add(codeItem{argv: []string{lang, "fork-loop"}, via: via, notes: []string{"fork-bomb"}, text: clip(code, 200)})
	}
	if lang == "python" && motoRe.MatchString(code) {
		// moto's mock_aws(): every AWS call of the code goes to an
		// in-memory fake, so what the SDK calls delete is nobody's.
		kept := out[:0]
		for _, it := range out {
			if !strings.Contains(it.via, "sdk") && !strings.Contains(it.via, "boto3") {
				kept = append(kept, it)
			}
		}
		out = kept
	}
	if env := codeEnvSets(code, vars); len(env) > 0 {
		// os.environ["OUT"] = "/tmp/x" before subprocess.run('rm -rf
		// "$OUT"', shell=True): the commands the code starts inherit it.
		for i := range out {
			out[i].env = env
		}
	}
	// In the order the code does things: a download before the run of
	// what it saved, a write before the source of the file.
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

// capturedUnshown reports whether the output-capturing call at pos is
// the right-hand side of an assignment (tok = subprocess.check_output(
// [...]).decode().strip()) whose name the code never prints, logs,
// writes or leaves as a notebook cell's value, and sends over the
// network only as a request's credential (headers={"Authorization":
// f"Bearer {tok}"}): the output is used, not shown.
func capturedUnshown(code string, pos int, callee, arg string) bool {
	switch callee {
	case "check_output", "getoutput", "getstatusoutput":
	case "run":
		if !strings.Contains(arg, "capture_output") && !strings.Contains(arg, "stdout") {
			return false
		}
	default:
		return false
	}
	ls := strings.LastIndexByte(code[:pos], '\n') + 1
	m := capturedAssignRe.FindStringSubmatch(code[ls:pos])
	if m == nil {
		return false
	}
	name := m[1]
	names := map[string]bool{name: true}
	end := strings.IndexByte(code[pos:], '\n')
	if end < 0 {
		return true // nothing after it
	}
	network := netReadRe.MatchString(code) || netSendRe.MatchString(code) || codeOutRe.MatchString(code)
	for _, line := range strings.Split(code[pos+end+1:], "\n") {
		if !mentionsAny(line, names) {
			continue
		}
		t := strings.TrimSpace(line)
		if printCallRe.MatchString(line) && strings.Contains(line, ".keys()") && !strings.Contains(line, ".values()") && !strings.Contains(line, ".items()") {
			// print(sorted(json.loads(out)["data"].keys())): the names.
			continue
		}
		if t == name || printCallRe.MatchString(line) || strings.Contains(line, ".write(") {
			return false
		}
		if network && !strings.Contains(line, "Bearer") && !strings.Contains(line, "Authorization") && !strings.Contains(line, "auth=") && !strings.Contains(line, "headers") {
			return false
		}
	}
	return true
}

var (
	// keyWrapRe: a mapping handed straight to set(), sorted(), list(),
	// tuple() or len() yields its keys (set(dotenv_values(".env"))).
	keyWrapRe        = refilter.MustCompile(`\b(?:set|sorted|list|tuple|len)\(\s*$`)
	cwdKwRe          = refilter.MustCompile(`\bcwd\s*=\s*`)
	capturedAssignRe = refilter.MustCompile(`^\s*([A-Za-z_]\w*)\s*=\s*(?:(?:json\.loads|yaml\.safe_load|loads|str|bytes)\(\s*)*[\w.]*$`)
	// codeOutRe: other ways code sends data out, besides netReadRe's
	// fetches and netSendRe's posts.
	codeOutRe = refilter.MustCompile(`\b(?:requests|httpx|session)\.(?:patch|request)\s*\(|\bsocket\b|\bsmtplib\b|\bpaste|\bupload`)
)

// pathVarUnread reports whether the path built at pos is bound to a
// name (key = os.path.expanduser("~/.ssh/id_deploy"), p = Path.home() /
// ".aws" / "credentials") that the code only tests, stats, chmods or
// hands to a program as its key or output file (ssh -i key, ssh-keygen
// -f key), or turns into its public half (str(key) + ".pub"): the file's
// content never reaches the code.
func pathVarUnread(code string, pos int) bool {
	ls := strings.LastIndexByte(code[:pos], '\n') + 1
	m := pathAssignRe.FindStringSubmatch(code[ls:pos])
	if m == nil {
		return false
	}
	name := m[1]
	end := strings.IndexByte(code[pos:], '\n')
	if end < 0 {
		return true
	}
	rest := code[pos+end:]
	uses := 0
	for i := 0; i < len(rest); {
		j := strings.Index(rest[i:], name)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(name)
		if at > 0 && (isIdentByte(rest[at-1]) || rest[at-1] == '.') || i < len(rest) && (isIdentByte(rest[i]) || rest[i] == '\'' || rest[i] == '"') {
			continue // part of a longer name, or a string's prefix (f'...')
		}
		uses++
		before, after := rest[max(0, at-40):at], rest[i:min(len(rest), i+40)]
		switch {
		case pathMetaBeforeRe.MatchString(before), pathMetaAfterRe.MatchString(after),
			keyOptBeforeRe.MatchString(before), strings.HasPrefix(after, ") + \".pub\"") || strings.HasPrefix(after, ") + '.pub'"):
		default:
			return false
		}
	}
	return uses > 0
}

var (
	pathAssignRe     = refilter.MustCompile(`^\s*([A-Za-z_]\w*)\s*=\s*(?:os\.path\.|pathlib\.)?$`)
	pathMetaBeforeRe = refilter.MustCompile(`\b(?:exists|isfile|isdir|islink|lexists|getsize|getmtime|stat|lstat|access|chmod|chown|utime)\(\s*(?:str\(\s*)?$`)
	pathMetaAfterRe  = refilter.MustCompile(`^\s*\.\s*(?:exists|is_file|is_dir|is_symlink|stat|lstat|chmod|touch|name|parent|suffix)\b`)
	// keyOptBeforeRe: the name is the value of a key or output file
	// option in an argument list ("-i", key / "-f", str(key)).
	keyOptBeforeRe = refilter.MustCompile(`["'](?:-i|-f|--identity-file|--key-file|-o)["']\s*,\s*(?:str\(\s*)?$|\bkey_filename\s*=\s*(?:str\(\s*)?$`)
)

// codeSetsEnv reports whether the code gives the environment variable
// a value of its own before it is read (os.environ["X"] = "...",
// mock.patch.dict(os.environ, {"X": "dummy"}), monkeypatch.setenv("X",
// ...)): printing it shows what the code wrote, not a secret.
func codeSetsEnv(code, name string) bool {
	if name == "" {
		return false
	}
	if _, ok := codeEnvSets(code, nil)[name]; ok {
		return true
	}
	for _, m := range envDictSetRe.FindAllStringSubmatchIndex(code, 4) {
		if body, _, ok := strings.Cut(code[m[1]:], "}"); ok && (strings.Contains(body, "'"+name+"'") || strings.Contains(body, `"`+name+`"`)) {
			return true
		}
	}
	return strings.Contains(code, "setenv('"+name+"'") || strings.Contains(code, `setenv("`+name+`"`)
}

// envDictSetRe: a dict of values laid over the environment
// (patch.dict(os.environ, {...}), os.environ.update({...})).
var envDictSetRe = refilter.MustCompile(`(?:\bpatch\.dict\(\s*os\.environ\s*,|\bos\.environ\.update\()\s*\{`)

// envSetRe finds code setting its own environment variables, which the
// processes it starts inherit: os.environ["X"] = v, os.putenv("X", v),
// os.environ.setdefault("X", v), process.env.X = v, ENV["X"] = v.
var envSetRe = refilter.MustCompile(`(?:\bos\.environ\[\s*['"]([A-Za-z_]\w*)['"]\s*\]|\bprocess\.env(?:\.([A-Za-z_]\w*)|\[\s*['"]([A-Za-z_]\w*)['"]\s*\])|\bENV\[\s*['"]([A-Za-z_]\w*)['"]\s*\])\s*=[^=]\s*|\bos\.(?:putenv|environ\.setdefault)\(\s*['"]([A-Za-z_]\w*)['"]\s*,\s*`)

// codeEnvSets returns the environment variables code sets to values it
// spells (a string, or a path it builds), by name.
func codeEnvSets(code string, vars map[string]string) map[string]string {
	if !strings.Contains(code, "environ") && !strings.Contains(code, "env") && !strings.Contains(code, "ENV[") {
		return nil
	}
	var env map[string]string
	for _, m := range envSetRe.FindAllStringSubmatchIndex(code, 16) {
		name := ""
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 {
				name = code[m[g]:m[g+1]]
				break
			}
		}
		rest := code[m[1]:]
		v, _, ok := readStrExpr(rest, vars)
		if !ok {
			v, _, ok = readPathSpecial(rest, vars)
		}
		if !ok || name == "" {
			continue
		}
		if env == nil {
			env = map[string]string{}
		}
		env[name] = v
	}
	return env
}

// motoRe is moto's AWS mock, as a context manager or decorator.
var motoRe = refilter.MustCompile(`(?m)^\s*(?:with\s+mock_(?:aws|s3|ec2|dynamodb|iam|sqs|sns|lambda)\(\)|@mock_(?:aws|s3|ec2|dynamodb|iam|sqs|sns|lambda)\b)`)

var (
	awkEnvironRe = refilter.MustCompile(`ENVIRON\[\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\]`)
	awkJuxtaRe   = refilter.MustCompile(`("(?:[^"\\\n]|\\.)*")[ \t]+("|[A-Za-z_])`)
)

// awkPipeRe finds awk's pipes to and from commands: a string printed
// into a shell, or a command string read with getline.
var awkPipeRe = refilter.MustCompile(`\bprintf?\s*\(?\s*("(?:[^"\\]|\\.)*")\s*\)?\s*\|\s*"(?:/bin/|/usr/bin/)?(?:ba|da|z)?sh"|("(?:[^"\\]|\\.)*")\s*\|\s*getline\b`)

// awkConcat rewrites awk's concatenation by juxtaposition ("rm -rf "
// ENVIRON["HOME"]) into the "+" the string reader follows, with
// ENVIRON["X"] read as the shell's $X.
func awkConcat(code string) string {
	code = awkEnvironRe.ReplaceAllStringFunc(code, func(m string) string {
		name := awkEnvironRe.FindStringSubmatch(m)[1]
		if name == "HOME" {
			return `"~"`
		}
		return `"$` + name + `"`
	})
	code = awkFields(code)
	for i := 0; i < 8; i++ { // overlapping pairs: "a" "b" "c"
		next := awkJuxtaRe.ReplaceAllString(code, "$1 + $2")
		if next == code {
			break
		}
		code = next
	}
	// One statement per line, so assignments inside "BEGIN { c = ...; }"
	// are read like a script's: a newline after each "{" and ";" outside
	// string literals.
	return awkRewrite(code, func(i int) (string, int) {
		if c := code[i]; c == '{' || c == ';' {
			return string(c) + "\n", i + 1
		}
		return "", i
	})
}

// awkRewrite copies awk code, letting f replace text that starts outside
// string literals: f returns the replacement and the index after what it
// replaces, or ("", i) to copy the byte as it is.
func awkRewrite(code string, f func(i int) (string, int)) string {
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(code); i++ {
		ch := code[i]
		switch {
		case esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case ch == '"':
			inStr = !inStr
		case !inStr:
			if repl, next := f(i); next > i {
				b.WriteString(repl)
				i = next - 1
				continue
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// rubyReverse returns the length of a Ruby ".reverse" (or ".reverse()")
// call at the start of s, or 0.
func rubyReverse(s string) int {
	if !strings.HasPrefix(s, ".reverse") {
		return 0
	}
	n := len(".reverse")
	if strings.HasPrefix(s[n:], "()") {
		return n + 2
	}
	if n < len(s) && (isIdentByte(s[n]) || s[n] == '(') {
		return 0
	}
	return n
}

// stmtEnd is where the statement at the start of s ends: the first ";"
// or newline outside quotes and brackets (at most 400 bytes).
func stmtEnd(s string) int { return scanNested(s, 0, 400, true) }

// awkFields turns awk's field references outside string literals ($1,
// $0, $NF) into a string of the input-word marker, so system("rm -rf "
// $1) reads as "rm -rf" applied to what awk reads, like xargs; the
// caller puts the known input words in its place.
func awkFields(code string) string {
	if !strings.Contains(code, "$") {
		return code
	}
	return awkRewrite(code, func(i int) (string, int) {
		if code[i] != '$' {
			return "", i
		}
		j := i + 1
		for j < len(code) && code[j] >= '0' && code[j] <= '9' {
			j++
		}
		if j == i+1 && strings.HasPrefix(code[j:], "NF") {
			j += 2
		}
		if j > i+1 && (j == len(code) || !isIdentByte(code[j])) {
			return `"` + stdinWord + `"`, j
		}
		return "", i
	})
}

// callArg returns the text of a call's arguments: s starts after the
// opening parenthesis and the text runs to the matching one (quotes and
// nesting respected, at most 400 bytes).
func callArg(s string) string {
	if i := closeIndex(s, 1, 400); i >= 0 {
		return s[:i]
	}
	return ""
}

// closeIndex returns the index in s where the bracket depth, starting at
// depth, falls to zero (quotes and nesting respected, at most limit
// bytes), or -1.
func closeIndex(s string, depth, limit int) int { return scanNested(s, depth, limit, false) }

// scanNested walks s with quotes and brackets respected (at most limit
// bytes). Without stmt it returns where the bracket depth, starting at
// depth, falls to zero, or -1; with stmt, where the statement ends (a
// ";" or newline at depth 0, or a closer below it), or the limit.
func scanNested(s string, depth, limit int, stmt bool) int {
	var quote byte
	for i := 0; i < len(s) && i < limit; i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if !stmt && depth == 0 || stmt && depth < 0 {
				return i
			}
		case stmt && depth == 0 && (c == ';' || c == '\n'):
			return i
		}
	}
	if stmt {
		return min(len(s), limit)
	}
	return -1
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func printable(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
		if r == 0xfffd {
			return false
		}
	}
	return true
}

func looksLikePath(p string) bool {
	return strings.ContainsAny(p, "/.~") && !strings.ContainsAny(p, "\n")
}

// decodeCalls are the decoders readDecodeCall applies to a literal
// argument, with whether the argument is hex (else base64).
var decodeCalls = []struct {
	prefix string
	hex    bool
}{
	{"base64.b64decode(", false}, {"base64.standard_b64decode(", false}, {"base64.urlsafe_b64decode(", false},
	{"base64.decodebytes(", false}, {"b64decode(", false}, {"bytes.fromhex(", true}, {"bytearray.fromhex(", true},
	{"binascii.unhexlify(", true}, {"binascii.a2b_hex(", true}, {"unhexlify(", true},
	// Elixir: Base.decode64!("cm0g..."), Base.decode16!("726d...", case: :lower).
	{"Base.decode64!(", false}, {"Base.decode64(", false}, {"Base.decode16!(", true}, {"Base.decode16(", true},
	// Perl: pack("H*", "726d20...").
	{`pack("H*",`, true}, {`pack('H*',`, true}, {`pack "H*",`, true}, {`pack 'H*',`, true},
}

// codecCalls are decoders whose second argument names the encoding:
// codecs.decode('...', 'rot13'), Buffer.from('...', 'base64').
var codecCalls = []string{"codecs.decode(", "Buffer.from("}

// readCodecCall reads one of codecCalls on a string expression and
// returns the decoded text when it is printable (Node's .toString() after
// Buffer.from is consumed).
func readCodecCall(s string, vars map[string]string) (string, int, bool) {
	for _, pre := range codecCalls {
		if !strings.HasPrefix(s, pre) {
			continue
		}
		lit, k, ok := readStrExpr(s[len(pre):], vars)
		if !ok {
			return "", 0, false
		}
		n := len(pre) + k
		rest := strings.TrimLeft(s[n:], " \t")
		if !strings.HasPrefix(rest, ",") {
			return "", 0, false
		}
		n += len(s[n:]) - len(rest) + 1
		enc, k2, ok := readStrExpr(strings.TrimLeft(s[n:], " \t"), vars)
		if !ok {
			return "", 0, false
		}
		n += len(s[n:]) - len(strings.TrimLeft(s[n:], " \t")) + k2
		if rest = strings.TrimLeft(s[n:], " \t"); !strings.HasPrefix(rest, ")") {
			return "", 0, false
		}
		n += len(s[n:]) - len(rest) + 1
		dec, ok := decodeAs(strings.ToLower(strings.ReplaceAll(enc, "_", "")), lit)
		if !ok {
			return "", 0, false
		}
		return dec, skipCall(s, n, ".toString("), true
	}
	return "", 0, false
}

// decodeAs decodes a literal as rot13, base64 or hex (blanks ignored),
// when the result is printable text.
func decodeAs(enc, lit string) (string, bool) {
	var dec string
	switch enc {
	case "rot13":
		dec = rot13(lit)
	case "base64":
		var ok bool
		if dec, ok = decodeB64(lit); !ok {
			return "", false
		}
	case "hex":
		b, err := hex.DecodeString(strings.Join(strings.Fields(lit), ""))
		if err != nil {
			return "", false
		}
		dec = string(b)
	default:
		return "", false
	}
	return dec, printable(dec)
}

// skipCall moves n past a call of method at s[n:] (".decode()",
// ".toString('utf8')").
func skipCall(s string, n int, method string) int {
	if after := s[n:]; strings.HasPrefix(after, method) {
		if j := strings.IndexByte(after, ')'); j >= 0 {
			n += j + 1
		}
	}
	return n
}

// readDecodeCall reads a decoder applied to a string expression,
// base64.b64decode('...').decode() or bytes.fromhex('...').decode(), and
// returns the decoded text when it is printable.
func readDecodeCall(s string, vars map[string]string) (string, int, bool) {
	if s == "" || s[0] != 'b' && s[0] != 'u' && s[0] != 'p' && s[0] != 'c' && s[0] != 'B' {
		return "", 0, false
	}
	if dec, n, ok := readCodecCall(s, vars); ok {
		return dec, n, true
	}
	for _, d := range decodeCalls {
		if !strings.HasPrefix(s, d.prefix) {
			continue
		}
		lit, k, ok := readStrExpr(s[len(d.prefix):], vars)
		if !ok {
			return "", 0, false
		}
		n := len(d.prefix) + k
		rest := strings.TrimLeft(s[n:], " \t")
		if !strings.HasPrefix(rest, ")") {
			return "", 0, false
		}
		n += len(s[n:]) - len(rest) + 1
		enc := "base64"
		if d.hex {
			enc = "hex"
		}
		dec, ok := decodeAs(enc, lit)
		if !ok {
			return "", 0, false
		}
		return dec, skipCall(s, n, ".decode("), true
	}
	return "", 0, false
}

// rubyHomes are the Ruby expressions for the home directory.
var rubyHomes = map[string]string{"Dir.home": "~", "ENV['HOME']": "~", `ENV["HOME"]`: "~", "Dir.pwd": ".", "Dir.getwd": "."}

// rubyInterp fills the #{...} fields of a Ruby string: the home
// directory and variables the code assigned; an unknown field stays a
// variable so that the string still reads as a command.
func rubyInterp(body string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(body, "#{")
		if i < 0 {
			b.WriteString(body)
			return b.String()
		}
		j := strings.IndexByte(body[i:], '}')
		if j < 0 {
			b.WriteString(body)
			return b.String()
		}
		expr := strings.TrimSpace(body[i+2 : i+j])
		b.WriteString(body[:i])
		if v, ok := rubyHomes[expr]; ok {
			b.WriteString(v)
		} else if v, ok := vars[expr]; ok {
			b.WriteString(v)
		} else {
			b.WriteString("$" + strings.Trim(expr, "@$"))
		}
		body = body[i+j+1:]
	}
}

// readPercentLit reads a Ruby percent string literal at the start of s
// (%q{...}, %Q(...), %[...], %<...>, %|...|), brackets nesting.
func readPercentLit(s string) (string, int, bool) {
	i := 1
	if len(s) > 1 && (s[1] == 'q' || s[1] == 'Q') {
		i = 2
	}
	if len(s) <= i || s[0] != '%' {
		return "", 0, false
	}
	open := s[i]
	closer := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>', '|': '|', '!': '!'}[open]
	if closer == 0 {
		return "", 0, false
	}
	depth := 0
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case c == closer && depth == 0:
			return s[i+1 : j], j + 1, true
		case c == closer:
			depth--
		case c == open:
			depth++
		}
	}
	return "", 0, false
}

// argOfOtherCall reports whether the text before an expression in a
// print statement leaves it inside a call other than printing,
// formatting or string conversion.
func argOfOtherCall(before string) bool {
	depth := 0
	for i := len(before) - 1; i >= 0; i-- {
		switch before[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth > 0 {
				depth--
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			name := before[:i]
			j := len(name)
			for j > 0 && (isIdentByte(name[j-1]) || name[j-1] == '.') {
				j--
			}
			switch strings.TrimLeft(name[j:], ".") {
			case "", "print", "println", "printf", "puts", "p", "pp", "say", "echo", "str", "repr", "format", "String", "JSON.stringify",
				"json.dumps", "console.log", "console.error", "console.info", "fmt.Println", "fmt.Printf", "fmt.Print", "print_r", "var_dump",
				"cat", "message", "writeLines", "paste", "paste0", "sprintf", "f":
				continue
			}
			return true
		}
	}
	return false
}

// stdinEventEval reports whether Node code evaluates the text it read
// from standard input through stream events.
func stdinEventEval(code string) bool {
	return strings.Contains(code, "process.stdin") && stdinEventRe.MatchString(code)
}

// urlText is code when it holds a URL, "" otherwise: patterns that need
// one skip the rest (Python's plain "import x" lines).
func urlText(code string) string {
	if strings.Contains(code, "://") {
		return code
	}
	return ""
}

// pyFmtRe: a printf-style conversion Python's % operator fills.
var pyFmtRe = refilter.MustCompile(`%[-+ #0]*[0-9]*[srdi]`)

// pyFormat fills a format's conversions with vals in order (%r as
// Python's repr of a string).
func pyFormat(format string, vals []string) string {
	i := 0
	out := pyFmtRe.ReplaceAllStringFunc(strings.ReplaceAll(format, "%%", "\x00"), func(m string) string {
		if i >= len(vals) {
			return m
		}
		v := vals[i]
		i++
		if strings.HasSuffix(m, "r") {
			return "'" + v + "'"
		}
		return v
	})
	return strings.ReplaceAll(out, "\x00", "%")
}

// readStrExpr reads a string expression at the start of s: literals
// joined with "+", "." (Perl/PHP) or juxtaposition, and known variable
// names. n is how many bytes were consumed.
func readStrExpr(s string, vars map[string]string) (string, int, bool) {
	var b strings.Builder
	n := 0
	got := false
	for {
		rest := s[n:]
		trim := strings.TrimLeft(rest, " \t")
		n += len(rest) - len(trim)
		rest = trim
		if dec, k, ok := readCharCodes(rest); ok {
			// chr(10), os.linesep, ''.join(chr(c) for c in [...]), and
			// chr(10).join([...]).
			if after := rest[k:]; strings.HasPrefix(after, ".join(") {
				if vals, k2, ok := readSeq(after[len(".join("):], vars); ok {
					if r := strings.TrimLeft(after[len(".join(")+k2:], " \t"); strings.HasPrefix(r, ")") {
						dec = strings.Join(vals, dec)
						k += len(after) - len(r) + 1
					}
				}
			}
			b.WriteString(dec)
			n += k
			got = true
		} else if m := strLitRe.FindStringSubmatchIndex(rest); m != nil {
			prefix := strings.ToLower(rest[:m[2]])
			body := ""
			for g := 2; g <= 6; g++ {
				if m[2*g] >= 0 {
					body = rest[m[2*g]:m[2*g+1]]
					break
				}
			}
			if !strings.Contains(prefix, "r") {
				body = unescape(body)
			}
			if strings.Contains(prefix, "f") || strings.Contains(rest[:1], "`") {
				body = fmtFields(body, rest[:1] == "`", vars)
			}
			if rest[:1] == `"` && strings.Contains(body, "$ENV{HOME}") {
				// Perl interpolates $ENV{HOME} in double quotes.
				body = strings.ReplaceAll(body, "$ENV{HOME}", "~")
			}
			if rest[:1] != "'" && strings.Contains(body, "#{") {
				// Ruby: "rm -rf #{Dir.home}/src".
				body = rubyInterp(body, vars)
			}
			n += m[1]
			after := s[n:]
			if strings.HasPrefix(after, "[::-1]") {
				// 'slaitnederc/swa./~'[::-1]
				body = reverse(body)
				n += len("[::-1]")
			} else if k := rubyReverse(after); k > 0 {
				// Ruby: "~ fr- mr".reverse
				body = reverse(body)
				n += k
			} else if strings.HasPrefix(after, ".join(") {
				// "/".join(["", "usr"]), chr(10).join([...])
				if vals, k, ok := readSeq(after[len(".join("):], vars); ok {
					if r := strings.TrimLeft(after[len(".join(")+k:], " \t"); strings.HasPrefix(r, ")") {
						body = strings.Join(vals, body)
						n += len(after) - len(r) + 1
					}
				}
			} else if r := strings.TrimLeft(after, " \t"); strings.HasPrefix(r, "%") && !strings.HasPrefix(r, "%=") && pyFmtRe.MatchString(body) {
				// "shutil.rmtree(%r)" % "/usr/local", "%s/%s" % (a, b):
				// Python's printf-style formatting.
				rhs := strings.TrimLeft(r[1:], " \t")
				var vals []string
				k, ok := 0, false
				if strings.HasPrefix(rhs, "(") || strings.HasPrefix(rhs, "[") {
					vals, k, ok = readSeq(rhs, vars)
				} else {
					var v string
					v, k, ok = readStrExpr(rhs, vars)
					vals = []string{v}
				}
				if ok {
					body = pyFormat(body, vals)
					n += len(after) - len(rhs) + k
				}
			}
			b.WriteString(body)
			got = true
		} else if body, k, ok := readPercentLit(rest); ok {
			// Ruby: system(%q{rm -rf ~}), %Q(...), %(...).
			if strings.Contains(body, "#{") && !strings.HasPrefix(rest, "%q") {
				body = rubyInterp(body, vars)
			}
			b.WriteString(body)
			n += k
			got = true
		} else if dec, k, ok := readDecodeCall(rest, vars); ok {
			// open(base64.b64decode('fi8uc3No...').decode()): the path
			// the literal decodes to.
			b.WriteString(dec)
			n += k
			got = true
		} else if v, k, ok := readValue(rest, vars); ok {
			b.WriteString(v)
			n += k
			got = true
		} else if m := revVarRe.FindStringSubmatchIndex(head(rest, 80)); m != nil && vars[rest[m[2]:m[3]]] != "" {
			// v[::-1] of a known v.
			b.WriteString(reverse(vars[rest[m[2]:m[3]]]))
			n += m[1]
			got = true
		} else if name, k, ok := readEnvRef(rest); ok {
			// os.environ["WIPE_DIR"]: the session may know the value.
			// os.environ.get("CACHE", "~"): when it does not, the
			// default is what the code falls back to.
			if open := strings.TrimRight(rest[:k], " \t"); !strings.HasSuffix(open, "]") && !strings.HasSuffix(open, ")") {
				// The call is still open: a default may follow.
				if def, dk, ok := readEnvDefault(rest[k:], vars); ok {
					name += envDefault + def
					k += dk
				}
			}
			b.WriteString(unkOpen + envMark + name + unkClose)
			n += k
			got = true
		} else if p, k, ok := readPathSpecial(rest, vars); ok && k > 0 && homeExprRe.MatchString(rest) {
			// 'rm -rf ' + process.env.HOME, os.getenv("HOME") .. "/x"
			b.WriteString(p)
			n += k
			got = true
		} else if w := quoteWrapRe.FindString(rest); w != "" {
			// escapeshellarg($home), shlex.quote(p): the quoting keeps the
			// value.
			v, k, ok := readStrExpr(rest[len(w):], vars)
			if !ok {
				break
			}
			after := strings.TrimLeft(rest[len(w)+k:], " \t")
			if !strings.HasPrefix(after, ")") {
				break
			}
			b.WriteString(v)
			n += len(rest) - len(after) + 1
			got = true
		} else if id := identAt(strings.TrimPrefix(rest, "$")); id != "" && vars != nil {
			if strings.HasPrefix(rest, "$") {
				n++ // Perl and PHP name variables with "$"
			}
			v, ok := vars[id]
			if !ok {
				if !got {
					return "", 0, false
				}
				b.WriteString(unkOpen + id + unkClose)
			} else {
				b.WriteString(v)
			}
			n += len(id)
			got = true
		} else if p, k, ok := readPathSpecial(rest, vars); ok && got {
			// "rm -rf " + os.path.expanduser("~")
			b.WriteString(p)
			n += k
		} else {
			if got && n > 0 && strings.HasSuffix(strings.TrimRight(s[:n], " \t"), "+") {
				// "rm -rf " + something unknown: keep the hole visible.
				b.WriteString(unkOpen + "expr" + unkClose)
			}
			break
		}
		rest = strings.TrimLeft(s[n:], " \t")
		if strings.HasPrefix(rest, "..") && !strings.HasPrefix(rest, "...") {
			// Lua joins strings with "..".
			n += len(s[n:]) - len(rest) + 2
			continue
		}
		if strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, "//") && !strings.HasPrefix(rest, "/=") && looksLikePath(b.String()) {
			// pathlib: unit_dir / "sync.service"
			r2 := strings.TrimLeft(rest[1:], " \t")
			if seg, k, ok := readStrExpr(r2, vars); ok {
				b.WriteString("/" + strings.TrimPrefix(seg, "/"))
				n += len(s[n:]) - len(r2) + k
				continue
			}
			break
		}
		if strings.HasPrefix(rest, "+") || strings.HasPrefix(rest, ".") && !strings.HasPrefix(rest, ".format") && !strings.HasPrefix(rest, ".join") && !strings.HasPrefix(rest, ".decode") && !strings.HasPrefix(rest, ".encode") && !strings.HasPrefix(rest, ".split") {
			n += len(s[n:]) - len(rest) + 1
			continue
		}
		break
	}
	return b.String(), n, got
}

// readPathExpr reads a path argument: a string expression, or
// os.path.expanduser("...") / Path("...") / os.path.join("a", "b") /
// Path.home() / "x".
func readPathExpr(s string, vars map[string]string) (string, int, bool) {
	if p, n, ok := readPathSpecial(s, vars); ok {
		return p, n, true
	}
	t := strings.TrimLeft(s, " \t")
	off := len(s) - len(t)
	p, n, ok := readStrExpr(t, vars)
	if ok && (strings.HasPrefix(p, `\\`) || len(p) > 2 && p[1] == ':' && p[2] == '\\') {
		// r'\\nas\share\x', r'C:\Users\x': a Windows path.
		return winPath(p), off + n, true
	}
	return homeInterp(p), off + n, ok
}

// homeInterp reads the home directory interpolated at the start of a
// string literal ("$ENV{HOME}/.ssh/id_rsa", "#{Dir.home}/.aws",
// "$::env(HOME)/x", "${HOME}/x") as "~".
func homeInterp(p string) string {
	for _, pre := range []string{"$ENV{HOME}", "${HOME}", "$HOME", "#{Dir.home}", "#{ENV['HOME']}", `#{ENV["HOME"]}`, "$::env(HOME)", "$env(HOME)", "{$_SERVER['HOME']}"} {
		if strings.HasPrefix(p, pre) && (len(p) == len(pre) || p[len(pre)] == '/') {
			return "~" + p[len(pre):]
		}
	}
	return p
}

// readPathSpecial reads the path-building calls readPathExpr knows, and
// nothing else.
func readPathSpecial(s string, vars map[string]string) (string, int, bool) {
	t := strings.TrimLeft(s, " \t")
	off := len(s) - len(t)
	// __import__("os").environ["HOME"] is os.environ["HOME"].
	for _, imp := range []string{"__import__('os').", "__import__(\"os\")."} {
		if strings.HasPrefix(t, imp) {
			t = "os." + t[len(imp):]
			off += len(imp) - len("os.")
		}
	}
	for _, pre := range []string{"PathBuf::from(", "Path::new(", "File(", "URL(fileURLWithPath:", "os.path.abspath(", "os.path.realpath(", "os.path.normpath(", "os.path.expanduser(", "expanduser(", "Path(", "pathlib.Path(", "os.path.expandvars(", "path.resolve(", "File.expand_path(", "path.expand(", "normalizePath(", "Dir.glob(", "new File(", "glob("} {
		if strings.HasPrefix(t, pre) {
			p, n, ok := readPathExpr(t[len(pre):], vars)
			n += len(pre)
			if r := strings.TrimLeft(t[n:], " \t"); ok && (pre == "File(" || pre == "new File(") && strings.HasPrefix(r, ",") {
				// new File(parent, "child"), Kotlin's File(home, ".aws/x").
				if seg, k, ok2 := readStrExpr(strings.TrimLeft(r[1:], " \t"), vars); ok2 {
					p = strings.TrimSuffix(p, "/") + "/" + strings.TrimPrefix(seg, "/")
					n += len(t[n:]) - len(strings.TrimLeft(r[1:], " \t")) + k
				}
			}
			if ok && pre == "os.path.expandvars(" && (strings.HasPrefix(p, "%") || strings.Contains(p, `\`)) {
				// expandvars(r"%LOCALAPPDATA%\Google\..."): a Windows path.
				p = winPath(p)
			}
			if r := strings.TrimLeft(t[n:], " \t"); ok && strings.HasPrefix(r, ")") {
				n += len(t[n:]) - len(r) + 1
				if strings.HasSuffix(pre, "Path(") {
					// Path('.') / 'build' / 'cache': joined segments.
					for {
						r2 := strings.TrimLeft(t[n:], " \t")
						if !strings.HasPrefix(r2, "/") {
							break
						}
						seg, k, ok2 := readStrExpr(r2[1:], vars)
						if !ok2 {
							break
						}
						p = strings.TrimSuffix(p, "/") + "/" + strings.TrimPrefix(seg, "/")
						n += len(t[n:]) - len(r2) + 1 + k
					}
				}
			}
			return p, off + n, ok
		}
	}
	if strings.HasPrefix(t, "&") {
		// Rust borrows: remove_dir_all(&stale).
		t = t[1:]
		off++
	}
	if m := pathJoinRe.FindStringSubmatchIndex(head(t, 64)); m != nil {
		// stale = home.join("cache"): a known path joined.
		if base, ok := vars[t[m[2]:m[3]]]; ok && (looksLikePath(base) || base == "~") {
			if seg, k, ok := readStrExpr(t[m[1]:], vars); ok {
				n := m[1] + k
				if r := strings.TrimLeft(t[n:], " \t"); strings.HasPrefix(r, ")") {
					n += len(t[n:]) - len(r) + 1
				}
				if seg == "" {
					return base, off + n, true
				}
				return strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(seg, "/"), off + n, true
			}
		}
	}
	if m := rustHomeRe.FindStringIndex(head(t, 96)); m != nil {
		// env::var("HOME").unwrap() / .expect("...") / ?: the home
		// directory, in Rust.
		t = "Path.home()" + t[m[1]:]
		off -= len("Path.home()") - m[1]
	}
	for _, pre := range []string{"env!(\"CARGO_MANIFEST_DIR\")", "fm.homeDirectoryForCurrentUser", "FileManager.default.homeDirectoryForCurrentUser", "NSHomeDirectory()", "Environment.GetFolderPath(Environment.SpecialFolder.UserProfile)", "os.getcwd()", "Path.cwd()", "pathlib.Path.cwd()", "process.cwd()", "Dir.pwd", "pathlib.Path.home()", "getenv(\"HOME\")", "getenv('HOME')", "os.Getenv(\"HOME\")", "os.UserHomeDir()", "Path.home()", "os.homedir()", "require('os').homedir()", "require(\"os\").homedir()", "homedir()", "os.path.expanduser(\"~\")", "os.environ[\"HOME\"]", "os.environ['HOME']", "os.getenv(\"HOME\")", "os.getenv('HOME')", "ENV[\"HOME\"]", "ENV['HOME']", "process.env.HOME", "$ENV{HOME}", "Dir.home", "Deno.env.get(\"HOME\")", "Deno.env.get('HOME')", "System.getProperty(\"user.home\")", "System.getProperty('user.home')", "std::env::var(\"HOME\").unwrap()", "env::var(\"HOME\").unwrap()", "dirs::home_dir().unwrap()", "$env(HOME)", "$::env(HOME)", "$_SERVER['HOME']"} {
		if strings.HasPrefix(t, pre) {
			rest := t[len(pre):]
			p := "~"
			if strings.Contains(pre, "cwd") || pre == "Dir.pwd" || strings.Contains(pre, "CARGO_MANIFEST_DIR") {
				p = "."
			}
			n := len(pre)
			// Path.home() / ".ssh" / "id_rsa", HOME + "/.ssh",
			// Path.home().joinpath(".aws", "credentials").
			for {
				r2 := strings.TrimLeft(rest, " \t")
				skip := 1
				switch {
				case strings.HasPrefix(r2, ".."):
					skip = 2 // Lua
				case strings.HasPrefix(r2, "/"), strings.HasPrefix(r2, "+"):
				case strings.HasPrefix(r2, ".joinpath("):
					skip = len(".joinpath(")
				case len(r2) > 1 && r2[0] == '.' && strings.ContainsRune("\"' ", rune(r2[1])):
					// PHP and Perl join strings with ".".
				default:
					skip = 0
				}
				if skip == 0 {
					break
				}
				seg, k, ok := readStrExpr(r2[skip:], vars)
				if !ok {
					break
				}
				p += "/" + strings.TrimPrefix(seg, "/")
				consumed := len(rest) - len(r2) + skip + k
				if strings.HasPrefix(r2, ".joinpath(") {
					// More joinpath parts, then the closing parenthesis.
					for {
						r3 := strings.TrimLeft(rest[consumed:], " \t")
						if !strings.HasPrefix(r3, ",") {
							break
						}
						seg, k, ok := readStrExpr(r3[1:], vars)
						if !ok {
							break
						}
						p += "/" + strings.TrimPrefix(seg, "/")
						consumed += len(rest[consumed:]) - len(r3) + 1 + k
					}
					if r3 := strings.TrimLeft(rest[consumed:], " \t"); strings.HasPrefix(r3, ")") {
						consumed += len(rest[consumed:]) - len(r3) + 1
					}
				}
				rest = rest[consumed:]
				n += consumed
			}
			return p, off + n, true
		}
	}
	for _, req := range []string{"require('path').", `require("path").`, "require('node:path').", `require("node:path").`} {
		if strings.HasPrefix(t, req) {
			// require('path').join(process.cwd(), 'dist'): path.join.
			off += len(req) - len("path.")
			t = "path." + t[len(req):]
			break
		}
	}
	if strings.HasPrefix(t, "os.path.join(") || strings.HasPrefix(t, "path.join(") || strings.HasPrefix(t, "path.resolve(") || strings.HasPrefix(t, "File.join(") || strings.HasPrefix(t, "filepath.Join(") || strings.HasPrefix(t, "Path.of(") || strings.HasPrefix(t, "Paths.get(") || strings.HasPrefix(t, "file.path(") {
		i := strings.Index(t, "(") + 1
		var parts []string
		n := i
		for {
			p, k, ok := readPathExpr(t[n:], vars)
			if !ok {
				break
			}
			parts = append(parts, p)
			n += k
			r := strings.TrimLeft(t[n:], " \t")
			if !strings.HasPrefix(r, ",") {
				break
			}
			n += len(t[n:]) - len(r) + 1
		}
		if len(parts) == 0 {
			return "", 0, false
		}
		if r := strings.TrimLeft(t[n:], " \t"); strings.HasPrefix(r, ")") {
			n += len(t[n:]) - len(r) + 1
		}
		return strings.Join(parts, "/"), off + n, true
	}
	return "", 0, false
}

func identAt(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	id := s[:i]
	switch id {
	case "True", "False", "None", "shell", "check", "capture_output", "text", "true", "false", "nil", "null":
		return ""
	}
	if i < len(s) && (s[i] == '(' || s[i] == '.' || s[i] == '[') {
		return ""
	}
	return id
}

// readList reads a list literal of string expressions: ["rm", "-rf", p].
func readList(s string, vars map[string]string) ([]string, bool) {
	m := listStartRe.FindStringIndex(s)
	if m == nil {
		return nil, false
	}
	n := m[1]
	var out []string
	for {
		str, k, ok := readPathExpr(s[n:], vars)
		if !ok {
			break
		}
		out = append(out, str)
		n += k
		r := strings.TrimLeft(s[n:], " \t\n")
		if !strings.HasPrefix(r, ",") {
			break
		}
		n += len(s[n:]) - len(r) + 1
		for n < len(s) && (s[n] == ' ' || s[n] == '\n' || s[n] == '\t') {
			n++
		}
	}
	r := strings.TrimLeft(s[n:], " \t\n")
	if len(out) == 0 || !strings.HasPrefix(r, "]") {
		return nil, false
	}
	// ["shred", "-u"] + glob.glob(P) / + ["x"] / + [P]: the list goes on.
	r = strings.TrimLeft(r[1:], " \t")
	if rest, ok := strings.CutPrefix(r, "+"); ok {
		rest = strings.TrimLeft(rest, " \t")
		if more, ok := readList(rest, vars); ok {
			out = append(out, more...)
		} else if g, ok := strings.CutPrefix(rest, "glob.glob("); ok {
			if p, _, ok := readPathExpr(strings.TrimLeft(g, " \t"), vars); ok {
				out = append(out, p)
			}
		}
	}
	return out, true
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 < len(s) {
				if v, ok := hexByte(s[i+1 : i+3]); ok {
					b.WriteByte(v)
					i += 2
					continue
				}
			}
			b.WriteByte('x')
		case '0', '1', '2', '3':
			// \162: an octal byte (Perl, PHP, awk, C strings).
			if i+2 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) {
				b.WriteByte((s[i]-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
				i += 2
				continue
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func hexByte(s string) (byte, bool) {
	var v byte
	for _, c := range []byte(s) {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + c - '0'
		case c >= 'a' && c <= 'f':
			v = v*16 + c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = v*16 + c - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}

var (
	// metaCallRe ends the code before a path expression that is the
	// argument of a call looking only at the file's existence or metadata.
	metaCallRe = refilter.MustCompile(`\b(?:chmod|chown|lchown|utime|chmodSync|chownSync|exists|isfile|isdir|islink|lexists|getsize|getmtime|getctime|stat|lstat|access|existsSync|statSync|lstatSync|accessSync|file_exists|is_file|is_dir|is_readable|filesize|filemtime|exist\?|file\?|size\?|directory\?)\s*\(\s*$`)
	// publicPathRe is a file a web site serves or a repository shows.
	publicPathRe = refilter.MustCompile(`(?i)(^|/)(public|static|wwwroot|www|htdocs|dist|docs)/|(^|/)README(\.\w+)?$|\.md$`)
	// secretEnvNameRe is an environment variable named as a secret.
	secretEnvNameRe = refilter.MustCompile(`(?i)secret|token|passw|pwd|api_?key|private|credential|database_url|_dsn$|_uri$`)
	// secretExprRe is an expression whose value is a secret a library
	// fetched or decrypted; lengthAfterRe follows one whose length, not
	// value, is used; presenceTestRe is a statement that only tests it.
	secretExprRe     = refilter.MustCompile(`(?i)\bget_token\([^)]*\)\.token\b|\bgetToken\(|\b[a-z_]\w*\.token\b|\baccess_secret_version\(|\bread_secret_version\(|\bread_secret\(|\.secret_access_key\b|\.secretAccessKey\b|\bget_password\(|\bgetPassword\(|\bGetNetworkCredential\(\)\.Password|\bDotenv\.(parse|load)\(|\bdotenv\b[^)]*\)\.config\(\)\.parsed|\bconfig\(\)\.parsed\b|\bRails\.application\.credentials\b|\bcredentials\.config\b|\bGetSecretValue\b|\bSecretString\b|\.payload\.data\b|\bSecret\.load\([^)]*\)\.get\(\)`)
	lengthAfterRe    = refilter.MustCompile(`^[)\]'"|\s]*(?:\.length|\.len\(\)|\.Length|\.size\b|\.count\b|\)\s*\.length)`)
	globDeleteRe     = refilter.MustCompile(`\barray_map\(\s*['"](unlink|rmdir)['"]\s*,\s*glob\(\s*|\bDir\.glob\(\s*`)
	rubyEachDeleteRe = refilter.MustCompile(`^\)?\s*\.each\s*(?:\{|do)\s*\|\w+\|\s*(?:FileUtils\.(?:rm_rf|rm_r|rm|remove_dir|remove_entry)|File\.delete|FileUtils\.rm_f)\b`)
	// walkFilterRe is a name or type test in a walk: the loop deletes
	// what it selects (f.endswith('.pyc')), not everything.
	namePrefixRe     = refilter.MustCompile(`\.name\.startswith\(\s*['"]([\w.-]+)['"]`)
	walkAgeRe        = refilter.MustCompile(`\bst_[amc]time\b|\bget[amc]time\(|\.days\b\s*[<>]|\bmtime\s*[<>]`)
	walkFilterRe     = refilter.MustCompile(`\.endswith\(|\bfnmatch\b|\.suffix\s*(==|in)\b|\.match\(|\.search\(|\bglob\(\s*['"]\*\.|\.extname\(|\bendsWith\(`)
	namesOrExampleRe = refilter.MustCompile(`\.keys\b|\.(example|sample|template|dist)\b`)
	presenceTestRe   = refilter.MustCompile(`(?i)\b(len|bool|nchar|isset|empty|strlen|length)\s*\(|!==?|===?|\bis\s+(not\s+)?None\b|\?\s*['"]|\bif\b|\bnull\b|\bnil\b|['"](set|present|missing|stored|configured|ok)['"]`)
	// printedPathRe ends the code before a path expression printed as
	// it is.
	printedPathRe    = refilter.MustCompile(`\b(?:print|puts|console\.log)\s*\(\s*$`)
	listCallRe       = refilter.MustCompile(`\b(?:listdir|scandir|walk|iglob|glob|readdirSync|readdir|ReadDir|entries|children)\s*\(\s*$`)
	listMethodRe     = refilter.MustCompile(`^\s*\)*\s*\.\s*(?:iterdir|glob|rglob|listdir|scandir)\s*\(`)
	contentReadRe    = refilter.MustCompile(`\.read_(?:text|bytes)\(|\bopen\s*\(|\.read\(\)|readFileSync|copyfile|copy2?\(|copytree|tarfile|zipfile|make_archive`)
	sqliteURLRe      = refilter.MustCompile(`['"]sqlite(?:\+\w+)?:///([^'"?\s]+)`)
	perlOpenWriteRe  = refilter.MustCompile(`^\s*(?:my\s+)?\$?\w+\s*,\s*['"](>>|\+?>)(?::\w+)?['"]\s*,\s*`)
	perlPrintRe      = refilter.MustCompile(`\b(?:print|printf|say)\s*\(?\s*(?:\{\s*)?\$?\w+\s*\}?\s+`)
	perlOpenHandleRe = refilter.MustCompile(`^\s*(?:my\s+)?\$?\w+\s*,\s*(?:['"][<+]?(?::\w+)?['"]\s*,\s*)?`)
	// metaMethodRe starts the code after a Path(...) expression whose
	// only use is a metadata method: Path("~/.ssh/id_rsa").exists().
	metaMethodRe = refilter.MustCompile(`^\s*\)*(?:\s*\.\s*(?:expanduser|resolve|absolute)\(\))*\s*\.\s*(?:exists|is_file|is_dir|is_symlink|stat|lstat|chmod|touch)\s*\(`)
)

// printedOnly reports whether what follows a path call's argument is
// its closing parenthesis and then the print's: nothing is done with
// the path but print it.
func printedOnly(after string) bool {
	a := strings.TrimLeft(after, " \t")
	if !strings.HasPrefix(a, ")") {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(a[1:], " \t"), ")")
}

// metaOnly reports whether a path expression between before and after
// is only tested (exists, isfile, stat), not opened: the file's content
// never reaches the output.
func metaOnly(before, after string) bool {
	b := strings.TrimRight(before, " \t")
	b = strings.TrimRight(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
	return metaCallRe.MatchString(b) || metaMethodRe.MatchString(after)
}

// listingOnly: a directory's entries are listed (iterdir, glob, listdir)
// and nothing in the code reads a file's content, so only names are
// printed: sorted(p.name for p in (Path.home()/'.ssh').iterdir()).
func listingOnly(code, after string) bool {
	return listMethodRe.MatchString(after) && !contentReadRe.MatchString(code)
}

// dropLoopUnknowns removes, from the items read before the loop
// variables were bound (out[pre:mid]), those with an unresolved word
// whose call was read again once per loop value: rmtree(f"~/ws/{d}") for
// d in ("build", "log") removes those two, not some unknown ~/ws/... .
func dropLoopUnknowns(out []codeItem, pre, mid int) []codeItem {
	again := map[string]bool{}
	for _, it := range out[mid:] {
		again[it.text] = true
	}
	kept := out[:pre]
	for _, it := range out[pre:mid] {
		if again[it.text] && slices.ContainsFunc(it.argv, Unknown) {
			continue
		}
		kept = append(kept, it)
	}
	return append(kept, out[mid:]...)
}

// listedOnly is listingOnly for a path handed to a listing function:
// print(sorted(os.listdir(os.path.expanduser('~/.ssh')))) prints names.
func listedOnly(code, before string) bool {
	b := strings.TrimRight(before, " \t")
	b = strings.TrimRight(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
	return listCallRe.MatchString(b) && !contentReadRe.MatchString(code)
}

// openedName: a plain file name (no directory) given to open() or a
// file-reading call is still a path, relative to where the code runs:
// after "cd ~/.ssh", open('id_rsa') reads the key.
func openedName(callee, p string) bool {
	switch callee {
	case "open", "io.open", "codecs.open", "fopen", "readFileSync", "readFile", "File.read", "IO.read", "file_get_contents", "readLines", "readfile",
		"upload_file", "CURLFile", "curl_file_create", "File.readlines", "IO.readlines":
		return p != "" && len(p) < 128 && !strings.ContainsAny(p, " \t\n\x00*?") && !Unknown(p)
	}
	return false
}

// writeShell is the shell form of interpreter code writing body to p, so
// the walker records the write (and later runs of p) like a redirect.
func writeShell(p, body string, appendTo bool) string {
	op := " > "
	if appendTo {
		op = " >> "
	}
	return "printf '%s' " + quote(body) + op + quote(p)
}

// dbClient names the command-line client that runs what a database
// driver imported by code runs, or "".
func dbClient(code string) string {
	switch {
	case strings.Contains(code, "psycopg") || strings.Contains(code, "asyncpg") || strings.Contains(code, "require('pg')") || strings.Contains(code, `require("pg")`) || strings.Contains(code, "pg8000") ||
		strings.Contains(code, "PG.connect(") || strings.Contains(code, "PG::Connection"):
		return "psql"
	case strings.Contains(code, "pymysql") || strings.Contains(code, "MySQLdb") || strings.Contains(code, "mysql.connector") || strings.Contains(code, "mysql2") || strings.Contains(code, "@planetscale/database"):
		return "mysql"
	case strings.Contains(code, "@libsql/client") || strings.Contains(code, "libsql_client") || strings.Contains(code, "libsql-client"):
		// Turso's libSQL: SQLite served over the network.
		return "sqlite3"
	case strings.Contains(code, "sqlite3.connect"):
		return "sqlite3"
	case strings.Contains(code, "DBI->connect(") || strings.Contains(code, "DBI::dbConnect("):
		// Perl's DBI names the driver in the DSN ("dbi:Pg:..."), R's DBI
		// in its first argument (RPostgres::Postgres()).
		low := strings.ToLower(code)
		switch {
		case strings.Contains(low, "dbi:pg:") || strings.Contains(low, "rpostgres") || strings.Contains(low, "postgresql()"):
			return "psql"
		case strings.Contains(low, "dbi:sqlite:") || strings.Contains(low, "rsqlite"):
			return "sqlite3"
		}
		return "mysql"
	case strings.Contains(code, "new PDO("):
		// PHP's PDO: the DSN's prefix names the server.
		switch {
		case strings.Contains(code, "pgsql:"):
			return "psql"
		case strings.Contains(code, "sqlite:"):
			return "sqlite3"
		case strings.Contains(code, "sqlsrv:"):
			return "sqlcmd"
		}
		return "mysql"
	case strings.Contains(code, "pyodbc") || strings.Contains(code, "require('mssql')") || strings.Contains(code, `require("mssql")`) || strings.Contains(code, "pymssql"):
		return "sqlcmd"
	case strings.Contains(code, "SparkSession") || strings.Contains(code, "pyspark") || strings.Contains(code, "spark.sql("):
		// (A Databricks notebook's cell has "spark" defined already.)
		// spark.sql("DROP DATABASE ...") on the cluster's metastore.
		return "spark-sql"
	case strings.Contains(code, "snowflake.connector") || strings.Contains(code, "snowflake.snowpark"):
		return "snowsql"
	case strings.Contains(code, "databricks import sql") || strings.Contains(code, "databricks.sql"):
		return "databricks"
	case strings.Contains(code, "duckdb.connect"):
		return "duckdb"
	case strings.Contains(code, "clickhouse_driver") || strings.Contains(code, "clickhouse_connect"):
		return "clickhouse-client"
	}
	if strings.Contains(code, "create_engine(") && !engineSchemeRe.MatchString(code) {
		// An engine whose URL comes from elsewhere (the environment,
		// settings): SQL all the same.
		if dbEnvURLRe.MatchString(code) {
			return "psql"
		}
	}
	if m := engineSchemeRe.FindStringSubmatch(code); m != nil {
		switch m[1] {
		case "postgres", "postgresql":
			return "psql"
		case "mysql", "mariadb":
			return "mysql"
		case "sqlite":
			return "sqlite3"
		case "mssql":
			return "sqlcmd"
		}
	}
	return ""
}

// StripPythonComments drops Python comments: "# never call os.system('rm
// -rf /')" runs nothing, and the scanners below need not search prose.
// A # inside a string literal (single, double or triple quoted, with
// escapes) is kept. Code without comments is returned as is.
func StripPythonComments(code string) string {
	if !strings.Contains(code, "#") {
		return code
	}
	var b strings.Builder
	last := 0 // code[last:i] is still to be copied
	for i := 0; i < len(code); {
		switch ch := code[i]; ch {
		case '#':
			end := strings.IndexByte(code[i:], '\n')
			if end < 0 {
				end = len(code)
			} else {
				end += i
			}
			if b.Len() == 0 {
				b.Grow(len(code))
			}
			b.WriteString(code[last:i])
			last, i = end, end
		case '\'', '"':
			i = literalEnd(code, i, true)
		default:
			i++
		}
	}
	if last == 0 && b.Len() == 0 {
		return code
	}
	b.WriteString(code[last:])
	return b.String()
}

type pyLoop struct {
	name string
	vals []string
	// lists are the values of a loop over argument lists (for cmd in
	// (["systemctl", "stop", "x"], [...])), each one whole.
	lists [][]string
	pos   int // where the loop starts in the code
}

// pyLoopVars finds loops over a literal list: for NAME in [...] / (...).
func pyLoopVars(code string, vars map[string]string) []pyLoop {
	var out []pyLoop
	for _, m := range goRangeRe.FindAllStringSubmatchIndex(code, 4) {
		// The Go literal's braces read as a list's brackets.
		if body := code[m[1]:]; strings.HasPrefix(body, "{") {
			if end := matchClose(body); end > 0 {
				if vals, _, ok := readSeq("["+body[1:end]+"]", vars); ok {
					out = append(out, pyLoop{name: code[m[2]:m[3]], vals: vals[:min(len(vals), 8)], pos: m[0]})
				}
			}
		}
	}
	for _, m := range pyForRe.FindAllStringSubmatchIndex(code, 4) {
		if vals, ok := loopValues(code[m[1]:], vars); ok && len(vals) > 0 {
			out = append(out, pyLoop{name: code[m[2]:m[3]], vals: vals[:min(len(vals), 8)], pos: m[0]})
		} else if lists := readSeqOfSeqs(code[m[1]:], vars); len(lists) > 0 {
			out = append(out, pyLoop{name: code[m[2]:m[3]], lists: lists[:min(len(lists), 8)], pos: m[0]})
		}
	}
	return out
}

// readSeqOfSeqs reads a literal tuple or list of literal lists at the
// start of s: (["a", "b"], ["c"]).
func readSeqOfSeqs(s string, vars map[string]string) [][]string {
	t := strings.TrimLeft(s, " \t")
	if t == "" || t[0] != '(' && t[0] != '[' {
		return nil
	}
	close := byte(')')
	if t[0] == '[' {
		close = ']'
	}
	t = t[1:]
	var out [][]string
	for len(out) < 16 {
		t = strings.TrimLeft(t, " \t\n")
		vals, n, ok := readSeq(t, vars)
		if !ok || !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "(") {
			return nil
		}
		out = append(out, vals)
		t = strings.TrimLeft(t[n:], " \t\n")
		if strings.HasPrefix(t, ",") {
			t = t[1:]
			if u := strings.TrimLeft(t, " \t\n"); u != "" && u[0] == close {
				return out
			}
			continue
		}
		if t != "" && t[0] == close {
			return out
		}
		return nil
	}
	return out
}

// dedupeItems returns the items of add that old (and add itself) does
// not already hold, compared by what they run.
func dedupeItems(old, add []codeItem) []codeItem {
	key := func(it codeItem) string { return it.shell + "\x00" + strings.Join(it.argv, "\x00") }
	seen := map[string]bool{}
	for _, it := range old {
		seen[key(it)] = true
	}
	var out []codeItem
	for _, it := range add {
		if k := key(it); !seen[k] {
			seen[k] = true
			out = append(out, it)
		}
	}
	return out
}

// pathThenArg reads "PATH, NEXT" at the start of a call's arguments: the
// path (when it looks like one) and the text of the next argument on.
func pathThenArg(rest string, vars map[string]string) (p, next string, ok bool) {
	p, n, ok := readPathExpr(rest, vars)
	if !ok || !looksLikePath(p) {
		return "", "", false
	}
	after := strings.TrimLeft(rest[n:], " \t")
	if !strings.HasPrefix(after, ",") {
		return "", "", false
	}
	return p, strings.TrimLeft(after[1:], " \t"), true
}

var (
	tclExecRe        = refilter.MustCompile(`\bexec\s+([^\]\n;]+)`)
	tclHexRe         = refilter.MustCompile(`\[\s*binary\s+format\s+H\*\s+([0-9a-fA-F]+)\s*\]`)
	tclRevRe         = refilter.MustCompile(`\[\s*string\s+reverse\s+(?:\{([^{}]*)\}|"([^"]*)")\s*\]`)
	tclOpenRe        = refilter.MustCompile(`\[\s*open\s+([^\s\]]+)`)
	tclDeleteRe      = refilter.MustCompile(`\bfile\s+delete\s+(?:-force\s+)?(?:--\s+)?([^\s\]]+)`)
	perlRmtreeBareRe = refilter.MustCompile(`\b(?:File::Path::)?(?:rmtree|remove_tree)\s+`)
	// Haskell applies functions without parentheses:
	// removeDirectoryRecursive "/srv/x".
	hsRmtreeRe     = refilter.MustCompile(`\b(?:System\.Directory\.)?(?:removeDirectoryRecursive|removePathForcibly)\s+`)
	juliaRunRe     = refilter.MustCompile("\\b(?:read|readchomp|readlines|readline|success|pipeline|eachline)\\s*\\(\\s*`([^`]+)`")
	jsShellTplRe   = refilter.MustCompile("(?:\\bBun\\.|(?:^|[^\\w.$]))\\$`([^`]*)`")
	jsInterpRe     = refilter.MustCompile(`\$\{[^}]*\}`)
	juliaRmRe      = refilter.MustCompile(`(?:^|[^\w.:])rm\s*\(\s*`)
	juliaRecRe     = refilter.MustCompile(`recursive\s*=\s*true\b`)
	juliaOpenCmdRe = refilter.MustCompile("\\bopen\\s*\\(\\s*`([^`]+)`\\s*,\\s*\"[wa]\"")
	juliaPrintRe   = refilter.MustCompile(`\b(?:println|print|write)\s*\(\s*\w+\s*,\s*`)
	luaLoadRe      = refilter.MustCompile(`\b(?:load|loadstring)\s*\(`)
	luaPopenRe     = refilter.MustCompile(`\bio\.popen\s*\(\s*`)
	fetchCmdRe     = refilter.MustCompile(`^\s*(?:curl|wget|fetch|http|xh)\s`)
	denoCmdRe      = refilter.MustCompile(`\bnew\s+Deno\.Command\s*\(\s*`)
	denoArgsRe     = refilter.MustCompile(`^\s*,\s*\{[^}]*?\bargs\s*:\s*\[`)
	copyCallRe     = refilter.MustCompile(`\bshutil\.(?:copy2?|copyfile|copytree)\s*\(\s*|\b(?:fs\.)?(?:copyFileSync|copyFile|cpSync)\s*\(\s*|\bFileUtils\.(?:cp|copy|cp_r|copy_file|install)\s*\(\s*|\bFile::Copy::copy\s*\(\s*|(?:^|[\s;{(=,])copy\s*\(\s*`)
	gradleDeleteRe = refilter.MustCompile(`(?:^|[^.\w]|\bproject\.)delete\s*\(?\s*((?:rootDir|projectDir|rootProject\.projectDir|project\.rootDir|project\.projectDir)(?:\.parentFile)*|(?:file\(\s*)?System\.getProperty\(\s*["']user\.home["']\s*\)|'[^']+'|"[^"]+")`)
	javaQualRe     = refilter.MustCompile(`\b(?:java\.(?:nio\.file|io|lang)|kotlin\.io)\.`)
	javaListRe     = refilter.MustCompile(`(\[[^\]]*\]|new\s+String\s*\[\s*\]\s*\{[^}]*\})\s*(?:\)\s*)?\.execute\(|exec\(\s*(new\s+String\s*\[\s*\]\s*\{[^}]*\})`)
	javaStrExec    = refilter.MustCompile(`("(?:[^"\\]|\\.)*")\s*\.execute\(`)
	javaFileRe     = refilter.MustCompile(`\b(?:new\s+)?File\s*\(\s*`)
	// javaDeleteRecRe: Kotlin's and Groovy's recursive deletes.
	javaDeleteRecRe = refilter.MustCompile(`^\.(?:deleteRecursively|deleteDir)\(\s*\)`)
	// processBuilderRe: Java's ProcessBuilder, its arguments given one by
	// one or as a list (listOf, List.of, Arrays.asList).
	processBuilderRe = refilter.MustCompile(`\bProcessBuilder\s*\(\s*(?:(?:listOf|mutableListOf|List\.of|Arrays\.asList)\s*\(\s*)?`)
)

// tclItems reads Tcl: exec runs a program, [open PATH] reads a file,
// file delete -force removes one; $env(HOME) is the home directory.
func tclItems(code string) []codeItem {
	home := func(s string) string {
		for _, h := range []string{"$::env(HOME)", "$env(HOME)"} {
			s = strings.ReplaceAll(s, h, "~")
		}
		return s
	}
	code = tclSubst(code)
	var out []codeItem
	for _, m := range tclExecRe.FindAllStringSubmatch(code, 8) {
		line := strings.NewReplacer("{", "'", "}", "'").Replace(home(strings.TrimSpace(m[1])))
		out = append(out, codeItem{shell: line, via: "exec"})
	}
	for _, m := range tclOpenRe.FindAllStringSubmatch(code, 8) {
		out = append(out, codeItem{argv: []string{"cat", home(m[1])}, via: "open"})
	}
	for _, m := range tclDeleteRe.FindAllStringSubmatch(code, 8) {
		out = append(out, codeItem{argv: []string{"rm", "-r", "-f", home(m[1])}, via: "file delete"})
	}
	return out
}

// tclSubst replaces the command substitutions that only decode a
// constant ([binary format H* HEX], [string reverse {TEXT}]) with the
// text they yield, in braces as Tcl would pass it on as one word.
func tclSubst(code string) string {
	if !strings.Contains(code, "[") {
		return code
	}
	code = tclHexRe.ReplaceAllStringFunc(code, func(m string) string {
		b, err := hex.DecodeString(tclHexRe.FindStringSubmatch(m)[1])
		if err != nil || !printable(string(b)) || strings.ContainsAny(string(b), "{}") {
			return m
		}
		return "{" + string(b) + "}"
	})
	return tclRevRe.ReplaceAllStringFunc(code, func(m string) string {
		g := tclRevRe.FindStringSubmatch(m)
		return "{" + reverse(g[1]+g[2]) + "}"
	})
}

// javaItems reads Groovy and Java one-liners: a list or String[] run
// with .execute() or Runtime.exec, "cmd".execute(), new File(PATH).
func javaItems(code string, vars map[string]string) []codeItem {
	var out []codeItem
	for _, m := range javaListRe.FindAllStringSubmatch(code, 8) {
		lit := m[1] + m[2]
		if i := strings.IndexByte(lit, '{'); i >= 0 && strings.HasPrefix(lit, "new") {
			lit = "[" + strings.TrimSuffix(lit[i+1:], "}") + "]"
		}
		if argv, ok := readList(lit, vars); ok && len(argv) > 0 {
			out = append(out, codeItem{argv: argv, via: "execute"})
		}
	}
	for _, m := range javaStrExec.FindAllStringSubmatch(code, 8) {
		if s, _, ok := readStrExpr(m[1], vars); ok {
			out = append(out, codeItem{shell: s, via: "execute"})
		}
	}
	for _, m := range javaFileRe.FindAllStringIndex(code, 8) {
		p, n, ok := readPathSpecial(code[m[0]:], vars)
		if !ok || p == "" {
			continue
		}
		// What is done with the File: Kotlin's and Groovy's methods on
		// it, or (Java) a stream opened on it, read.
		rest := strings.TrimLeft(code[m[0]+n:], " \t\n")
		switch {
		case javaDeleteRecRe.MatchString(rest):
			out = append(out, codeItem{argv: []string{"rm", "-r", "-f", p}, via: "File.deleteRecursively"})
		case strings.HasPrefix(rest, ".delete()"):
			out = append(out, codeItem{argv: []string{"rm", "-f", p}, via: "File.delete"})
		case strings.HasPrefix(rest, ".writeText(") || strings.HasPrefix(rest, ".appendText(") || strings.HasPrefix(rest, ".append("):
			appendTo := !strings.HasPrefix(rest, ".writeText(")
			if body, _, ok := readStrExpr(rest[strings.IndexByte(rest, '(')+1:], vars); ok {
				out = append(out, codeItem{shell: writeShell(p, body, appendTo), via: "File.write"})
			} else {
				out = append(out, codeItem{argv: []string{"tee", p}, via: "File.write"})
			}
		case looksLikePath(p) && p != "~":
			out = append(out, codeItem{argv: []string{"cat", p}, via: "File"})
		}
	}
	// Gradle's Delete task and project.delete: "delete rootDir.parentFile"
	// removes the directory above the project.
	for _, m := range gradleDeleteRe.FindAllStringSubmatch(code, 8) {
		p := "."
		switch {
		case strings.Contains(m[1], "user.home"):
			p = "~"
		case strings.HasPrefix(m[1], "'") || strings.HasPrefix(m[1], `"`):
			p = strings.Trim(m[1], `'"`)
		default:
			p += strings.Repeat("/..", strings.Count(m[1], ".parentFile"))
		}
		out = append(out, codeItem{argv: []string{"rm", "-r", "-f", p}, via: "gradle delete"})
	}
	// new ProcessBuilder("rm", "-rf", dir), ProcessBuilder(listOf(...)),
	// new ProcessBuilder(List.of(...)): the program and its arguments.
	for _, m := range processBuilderRe.FindAllStringIndex(code, 8) {
		rest := code[m[1]:]
		var argv []string
		for len(argv) < 32 {
			a, k, ok := readPathExpr(rest, vars)
			if !ok {
				break
			}
			argv = append(argv, a)
			rest = strings.TrimLeft(rest[k:], " \t\n")
			if !strings.HasPrefix(rest, ",") {
				break
			}
			rest = rest[1:]
		}
		if len(argv) > 0 {
			out = append(out, codeItem{argv: argv, via: "ProcessBuilder"})
		}
	}
	return out
}

// langProgram is the interpreter program for an extractor language, for
// the shell form of code that runs fetched code ("curl URL | Rscript -").
func langProgram(lang string) string {
	switch lang {
	case "r":
		return "Rscript -"
	case "java":
		return "groovy -"
	case "tcl":
		return "tclsh"
	case "applescript":
		return "osascript -"
	}
	return lang
}

// envNamed reports whether p is exactly an environment variable code
// read (open(os.environ["KEY_FILE"])): its value, exported earlier in the
// session, is the path.
func envNamed(p string) bool {
	return strings.HasPrefix(p, unkOpen+envMark) && strings.HasSuffix(p, unkClose) && strings.Count(p, unkOpen) == 1
}

// strSuffixRe is a string literal appended to an expression and
// ending the argument: ` + "/htmlcov")`.
var strSuffixRe = refilter.MustCompile(`^\s*\+\s*(['"])([^'"\\]*)(['"])\s*[,)]`)

// perlBareOpenRe: Perl's open without parentheses, up to its path.
var perlBareOpenRe = refilter.MustCompile(`\bopen\s+(?:my\s+)?\$?\w+\s*,\s*`)

// walkPrinted reports a directory walk at code[i:] on a line that only
// prints ("print(sorted(x.name for x in Path('.').iterdir()))"): a
// listing shown, not a loop whose entries are deleted.
func walkPrinted(code string, i int) bool {
	start := strings.LastIndexByte(code[:i], '\n') + 1
	line := strings.TrimLeft(code[start:i], " \t")
	return strings.HasPrefix(line, "print(") || strings.HasPrefix(line, "pprint(") || strings.HasPrefix(line, "console.log(")
}
