// The edit records ICU's own normalizer makes (Normalizer2::normalizeUTF8 with icu::Edits, as
// TF Text's NormalizeUTF8WithOffsetsMap calls it), for icu_edits.test.ts to compare tfgate's
// with. Reads lines "FORM HEX" (FORM: NFC, NFD, NFKC or NFKD; HEX: the string's bytes, "-" when
// empty) and prints "OUT SPANS" for each: the normalized bytes as hex ("-" when empty) and the
// fine edits, unchanged as u<old>:<new> and replacements as c<old>:<new>, comma-separated ("-").
// Build: g++ -O1 -o probe icu_edits_probe.cc -licuuc
#include <unicode/bytestream.h>
#include <unicode/edits.h>
#include <unicode/normalizer2.h>

#include <iostream>
#include <string>

namespace {

std::string FromHex(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

std::string ToHex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex.empty() ? "-" : hex;
}

const icu::Normalizer2* Instance(const std::string& form, UErrorCode& status) {
  if (form == "NFC") return icu::Normalizer2::getNFCInstance(status);
  if (form == "NFD") return icu::Normalizer2::getNFDInstance(status);
  if (form == "NFKC") return icu::Normalizer2::getNFKCInstance(status);
  return icu::Normalizer2::getNFKDInstance(status);
}

}  // namespace

int main() {
  std::string form, hex;
  while (std::cin >> form >> hex) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* normalizer = Instance(form, status);
    const std::string source = hex == "-" ? "" : FromHex(hex);
    std::string output;
    icu::StringByteSink<std::string> sink(&output);
    icu::Edits edits;
    normalizer->normalizeUTF8(0, icu::StringPiece(source.data(), static_cast<int32_t>(source.size())), sink, &edits, status);
    if (U_FAILURE(status)) {
      std::cout << "ERROR " << u_errorName(status) << "\n";
      continue;
    }
    std::string spans;
    icu::Edits::Iterator it = edits.getFineIterator();
    while (it.next(status)) {
      if (!spans.empty()) spans += ",";
      spans += (it.hasChange() ? "c" : "u") + std::to_string(it.oldLength()) + ":" + std::to_string(it.newLength());
    }
    std::cout << ToHex(output) << " " << (spans.empty() ? "-" : spans) << "\n";
  }
  return 0;
}
