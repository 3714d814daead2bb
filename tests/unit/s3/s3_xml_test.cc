// The strict XML reader used on S3 answers: structure, entities, namespaces,
// rejection of malformed input, and survival of mutated documents (bounded,
// no crash; run under ASan/UBSan with FLOE_SANITIZE=ON).
#include "io/s3/s3_xml.h"

#include <gtest/gtest.h>

#include <random>

#include "io/s3/s3_client.h"
#include "test_util.h"

namespace floe::s3 {
namespace {

TEST(S3XmlTest, ElementsTextEntitiesAndNamespaces) {
  ASSERT_OK_AND_ASSIGN(XmlElement root, ParseXml("<?xml version=\"1.0\"?>\n<!-- c -->\n"
                                                 "<s3:Root xmlns:s3='urn:x' a=\"1\">"
                                                 "<s3:Key>a&amp;b&#x41;&#66;<![CDATA[<raw>&amp;]]></s3:Key>"
                                                 "<Empty/><Empty attr='v' /><!-- inside --><?pi x?>"
                                                 "</s3:Root >\n"));
  EXPECT_EQ(root.name, "Root");
  ASSERT_EQ(root.children.size(), 3u);
  EXPECT_EQ(root.ChildText("Key"), "a&bAB<raw>&amp;");
  EXPECT_EQ(root.children[1].name, "Empty");
  EXPECT_EQ(root.ChildText("Missing"), "");
  EXPECT_EQ(root.Child("Missing"), nullptr);
  EXPECT_EQ(XmlEscape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  ASSERT_OK_AND_ASSIGN(XmlElement escaped, ParseXml("<k>" + XmlEscape("x<&>\"'y") + "</k>"));
  EXPECT_EQ(escaped.text, "x<&>\"'y");
}

TEST(S3XmlTest, MalformedInputIsCorruptionWithOffset) {
  for (const char* bad : {"",
                          "   ",
                          "text",
                          "<a>",
                          "<a></b>",
                          "<a><b></a></b>",
                          "<a x></a>",
                          "<a x=1></a>",
                          "<a x=\"1></a>",
                          "<a>&amp</a>",
                          "<a>&#xZZ;</a>",
                          "<a>&#0;</a>",
                          "<a>&#xD800;</a>",
                          "<a>&#x110000;</a>",
                          "<a/><b/>",
                          "<a/>trailing",
                          "<!DOCTYPE a><a/>",
                          "<a><!DOCTYPE x></a>",
                          "<a><![CDATA[x</a>",
                          "<a><!-- x</a>",
                          "<?xml",
                          "<a",
                          "</a>"}) {
    Result<XmlElement> parsed = ParseXml(bad);
    ASSERT_FALSE(parsed.ok()) << "accepted: " << bad;
    EXPECT_EQ(parsed.status().kind(), ErrorKind::kCorruption) << bad;
    EXPECT_NE(parsed.status().message().find("at byte"), std::string::npos) << parsed.status().ToString();
  }
}

TEST(S3XmlTest, DepthLimitHoldsAtTheBoundary) {
  auto nested = [](int depth) {
    std::string xml;
    for (int i = 0; i < depth; ++i) xml += "<a>";
    for (int i = 0; i < depth; ++i) xml += "</a>";
    return xml;
  };
  EXPECT_OK(ParseXml(nested(kMaxXmlDepth)));
  EXPECT_FALSE(ParseXml(nested(kMaxXmlDepth + 1)).ok());
  EXPECT_FALSE(ParseXml(nested(100000)).ok());  // no stack overflow
}

TEST(S3XmlTest, MutatedListDocumentsNeverCrash) {
  const std::string seed =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult "
      "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>abc</NextContinuationToken>"
      "<Contents><Key>k&amp;1</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified><Size>12</Size></"
      "Contents>"
      "<CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes></ListBucketResult>";
  std::mt19937 rng(1234);
  const std::string alphabet = "<>/&;#x=\"' ![]-?:aZ0\n";
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string doc = seed;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !doc.empty(); ++e) {
      size_t pos = rng() % doc.size();
      switch (rng() % 3) {
        case 0: doc[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: doc.erase(pos, 1 + rng() % 8); break;
        default: doc.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    if (S3Client::ParseListResult(doc).ok()) ++accepted;
  }
  // Some mutations stay valid (inside text), most do not; neither may crash.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 20000);
}

}  // namespace
}  // namespace floe::s3
