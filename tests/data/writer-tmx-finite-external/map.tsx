<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.8" tiledversion="1.8.2" name="map" tilewidth="8" tileheight="8" tilecount="4" columns="2">
 <image source="map-tiles.png" width="16" height="16"/>
 <tile id="0">
  <properties>
   <property name="name" value="grass"/>
   <property name="terrain" value="g"/>
  </properties>
 </tile>
 <tile id="1" probability="0.5">
  <properties>
   <property name="name" value="water"/>
   <property name="terrain" value="w"/>
  </properties>
 </tile>
 <tile id="2">
  <properties>
   <property name="name" value="sand"/>
   <property name="terrain" value="s"/>
  </properties>
 </tile>
 <tile id="3" probability="0.25">
  <properties>
   <property name="name" value="flower"/>
  </properties>
 </tile>
 <wangsets>
  <wangset name="terrains" type="mixed" tile="-1">
   <wangcolor name="grass" color="#40a040" tile="-1" probability="1"/>
   <wangcolor name="water" color="#3060c0" tile="-1" probability="1"/>
   <wangtile tileid="0" wangid="1,1,1,1,1,1,1,1"/>
   <wangtile tileid="1" wangid="2,2,2,2,2,2,2,2"/>
  </wangset>
 </wangsets>
</tileset>
